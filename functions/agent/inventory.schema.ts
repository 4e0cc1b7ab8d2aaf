import type { EndpointInput, EndpointSchema } from '#http/spec';
import { inventorySchema } from './agent-schemas.ts';

export const schema = {
  summary: "Agent: the host's inventory changed (pools, datasets, tunables, jails, VMs …)",
  role: 'agent',
  method: 'PUT',
  route: '/api/agent/inventory',
  body: { type: 'object', properties: { inventory: inventorySchema }, required: ['inventory'], additionalProperties: false },
  bodyLimit: 8 * 1024 * 1024,
  responses: { 200: 'inventory_recorded', 404: 'node_not_registered' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
