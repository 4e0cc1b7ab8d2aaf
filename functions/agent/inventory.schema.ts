import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';

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
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'inventory'>;
