import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { describes } from '#http/responses/same';
import { nodeViewSchema } from '#http/responses/node';

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
  data: describes<AgentData<'register'>>()({
    type: 'object',
    properties: {
      node: nodeViewSchema,
      queueUrl: { type: 'string' },
      /** the persisted configuration to re-apply, as tasks (run through `start` like any task) */
      reapply: {
        type: 'array',
        items: {
          type: 'object',
          properties: { taskId: { type: 'integer', minimum: 1 }, kind: { type: 'string' }, resource: { type: 'string' }, payload: {} },
          required: ['taskId', 'kind', 'resource', 'payload'],
          additionalProperties: false,
        },
      },
    },
    required: ['node', 'queueUrl', 'reapply'],
    additionalProperties: false,
  } as const),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'register'>;
