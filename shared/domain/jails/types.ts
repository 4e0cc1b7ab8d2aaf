import type { JailHooks } from '#shared/agent-api/jail-hooks';
import type { JailInventory } from '#shared/agent-api/inventory';

// a jail as the agent reports it is part of the agent wire (shared/agent-api/inventory.ts)
export type { JailInventory };

/**
 * `guests.config` of a jail row. `hooks`, `cores`, `cpuSet` and `memoryBytes` are the persisted (desired)
 * configuration that E3/E4 write and the agent re-applies at start; `host` is the last inventory entry.
 */
export interface JailConfig {
  dataset: string | null;
  path: string;
  hostname: string;
  jid: number | null;
  hooks: JailHooks;
  /** CPU-core limit; null = not limited */
  cores: number | null;
  cpuSet: number[];
  memoryBytes: number;
  host: JailInventory;
}

/** The Jail CPU limit record (E4's response). */
export interface JailCpuLimit {
  cores: number;
  cpuSet: number[];
  ctId: number;
  /** memory limit in bytes (0 = none) */
  memory: number;
  resourceLimits: boolean;
}
