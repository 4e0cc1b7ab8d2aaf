import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { describes } from '#http/responses/same';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route, body } = agentContract.telemetry;

export const schema = {
  summary:
    'Agent: store pool and ARC telemetry samples of the agent’s node (feeds E14); `watched`: someone reads them, so the agent posts each sample as taken, not in batches',
  role: 'agent',
  audit: 'refusals',
  method,
  route,
  body,
  responses: { 200: 'telemetry_stored', 400: 'validation_failed', 404: 'node_not_registered', 413: 'payload_too_large' },
  data: describes<AgentData<'telemetry'>>()({
    type: 'object',
    properties: {
      pools: { type: 'integer', minimum: 0 },
      arc: { type: 'integer', minimum: 0 },
      skipped: { type: 'integer', minimum: 0 },
      watched: { type: 'boolean' },
    },
    required: ['pools', 'arc', 'skipped', 'watched'],
    additionalProperties: false,
  } as const),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'telemetry'>;
