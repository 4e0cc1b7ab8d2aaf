import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { describes } from '#http/responses/same';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route } = agentContract.interruptStale;

export const schema = {
  summary:
    "Agent, at start: its node's tasks still `running` were cut off by the restart; mark them interrupted, except those asked to cancel that the agent undoes (`cancelling`)",
  role: 'agent',
  method,
  route,
  responses: { 200: 'stale_tasks_interrupted' },
  data: describes<AgentData<'interruptStale'>>()({
    type: 'object',
    properties: {
      nodeId: { type: 'string' },
      interrupted: { type: 'array', items: { type: 'integer', minimum: 1 } },
      cancelling: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'integer', minimum: 1 },
            kind: { type: 'string' },
            attempt: { type: 'integer', minimum: 0 },
            payload: {},
            requestedBy: { type: 'string' },
          },
          required: ['id', 'kind', 'attempt', 'payload', 'requestedBy'],
          additionalProperties: false,
        },
      },
    },
    required: ['nodeId', 'interrupted', 'cancelling'],
    additionalProperties: false,
  } as const),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'interruptStale'>;
