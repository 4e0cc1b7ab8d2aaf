import { capabilitiesSchema } from '#shared/agent-api/capabilities';
import { inventoryViewSchema } from '#shared/agent-api/inventory';
import type { NodeView } from '#domain/nodes/view';
import { describes } from './same.ts';
import { isoTime, isoTimeOrNull } from './time.ts';

/** A cluster node as the API shows it (`toNodeView`); `inventory` only in the single-node read. */
export const nodeViewSchema = describes<NodeView>()({
  title: 'NodeView',
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    ip: { type: 'string' },
    status: { type: 'string' },
    online: { type: 'boolean' },
    lastSeenAt: isoTimeOrNull,
    heartbeatIntervalS: { type: 'integer' },
    agentVersion: { type: 'string' },
    agentStartedAt: isoTimeOrNull,
    registeredAt: isoTimeOrNull,
    inventoryAt: isoTimeOrNull,
    createdAt: isoTime,
    capabilities: { anyOf: [capabilitiesSchema, { type: 'null' }] },
    inventory: inventoryViewSchema,
  },
  required: [
    'id',
    'name',
    'ip',
    'status',
    'online',
    'lastSeenAt',
    'heartbeatIntervalS',
    'agentVersion',
    'agentStartedAt',
    'registeredAt',
    'inventoryAt',
    'createdAt',
    'capabilities',
  ],
  additionalProperties: false,
} as const);
