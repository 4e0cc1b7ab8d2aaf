/** Schema pieces of the agent endpoints. */
import { id32 } from '#http/spec';

/** Node ids are the hosts' UUIDs (`kern.hostuuid`); they also name the node's queue. */
export const nodeUuid = { type: 'string', pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' } as const;

/** HostInventory (shared/domain/inventory.ts): the fixed head is checked, capability sections pass through. */
export const inventorySchema = {
  type: 'object',
  properties: {
    hostname: { type: 'string', maxLength: 255 },
    os: { type: 'string', maxLength: 255 },
    cpus: { type: 'integer', minimum: 0 },
    memoryBytes: { type: 'integer', minimum: 0 },
  },
  required: ['hostname', 'os', 'cpus', 'memoryBytes'],
  additionalProperties: true,
} as const;

/** The attempt a report belongs to (from the start answer): a stale attempt's report is refused. */
export const attempt = id32;
