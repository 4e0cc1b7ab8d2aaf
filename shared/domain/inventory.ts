import { MAX_HOST_CPUS } from '#shared/agent-api/inventory';

// the inventory is part of the agent wire: its schema and types are declared there (shared/agent-api/inventory.ts)
export {
  MAX_HOST_CPUS,
  type DatasetInventory,
  type HostInventory,
  type PoolInventory,
  type PoolVdev,
  type TunableInventory,
} from '#shared/agent-api/inventory';

/** The reported CPU count if it is a plausible one (an integer 1..MAX_HOST_CPUS), else null. */
export const reportedCpus = (raw: unknown): number | null =>
  Number.isSafeInteger(raw) && (raw as number) >= 1 && (raw as number) <= MAX_HOST_CPUS ? (raw as number) : null;
