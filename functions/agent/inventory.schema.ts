import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { describes } from '#http/responses/same';
import { isoTimeOrNull } from '#http/responses/time';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route, body } = agentContract.inventory;

export const schema = {
  summary: "Agent: the host's inventory changed (pools, datasets, tunables, jails, VMs …)",
  role: 'agent',
  method,
  route,
  body,
  bodyLimit: 8 * 1024 * 1024,
  responses: { 200: 'inventory_recorded', 404: 'node_not_registered' },
  data: describes<AgentData<'inventory'>>()({
    type: 'object',
    properties: { nodeId: { type: 'string' }, changed: { type: 'boolean' }, inventoryAt: isoTimeOrNull },
    required: ['nodeId', 'changed', 'inventoryAt'],
    additionalProperties: false,
  } as const),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'inventory'>;
