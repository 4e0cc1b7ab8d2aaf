import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route, body } = agentContract.register;

export const schema = {
  summary: 'Agent: register the host at start (creates the node pending, or refreshes it); returns its queue and the configuration to re-apply',
  role: 'agent',
  method,
  route,
  body,
  bodyLimit: 8 * 1024 * 1024,
  queues: 'create',
  responses: { 200: 'node_registered', 201: 'node_registered', 503: 'queue_unavailable' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'register'>;
