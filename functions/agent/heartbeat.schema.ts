import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { describes } from '#http/responses/same';
import { isoTime } from '#http/responses/time';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route } = agentContract.heartbeat;

export const schema = {
  summary:
    "Agent: sign of life; the node stays online while heard from at least once every three heartbeat intervals. Also sweeps the node's queued tasks, and names its running tasks an operator cancelled (`cancel`)",
  role: 'agent',
  audit: 'refusals',
  method,
  route,
  responses: { 200: 'heartbeat_recorded', 404: 'node_not_registered' },
  data: describes<AgentData<'heartbeat'>>()({
    type: 'object',
    properties: {
      nodeId: { type: 'string' },
      lastSeenAt: isoTime,
      resent: { type: 'array', items: { type: 'integer', minimum: 1 } },
      cancel: { type: 'array', items: { type: 'integer', minimum: 1 } },
    },
    required: ['nodeId', 'lastSeenAt', 'resent', 'cancel'],
    additionalProperties: false,
  } as const),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'heartbeat'>;
