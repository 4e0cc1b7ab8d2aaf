import type { EndpointInput, EndpointSchema } from '#http/spec';
import { telemetrySampleSchema } from '#domain/telemetry/sample';

export const schema = {
  summary: 'Agent: store pool and ARC telemetry samples of the agent’s node (feeds E14)',
  role: 'agent',
  method: 'POST',
  route: '/api/agent/telemetry',
  body: {
    type: 'object',
    properties: {
      /** oldest first; more than one when the agent is catching up after the API was unreachable */
      samples: { type: 'array', minItems: 1, maxItems: 360, items: telemetrySampleSchema },
    },
    required: ['samples'],
    additionalProperties: false,
  },
  responses: { 200: 'telemetry_stored', 400: 'validation_failed', 404: 'node_not_registered', 413: 'payload_too_large' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
