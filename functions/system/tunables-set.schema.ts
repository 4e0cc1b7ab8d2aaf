import { nodeQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { tunableNameSchema, tunableValueSchema } from '#domain/tunables/settings';

export const schema = {
  operation: 'E11',
  summary: 'Set a writable sysctl tunable; persisted and re-applied when the agent starts',
  role: 'admin',
  method: 'PUT',
  route: '/api/system/tunables',
  query: nodeQuery,
  body: {
    type: 'object',
    properties: { name: tunableNameSchema, value: tunableValueSchema },
    required: ['name', 'value'],
    additionalProperties: false,
  },
  responses: {
    200: 'tunable_set',
    400: 'validation_failed | tunable_read_only | invalid_tunable_value',
    404: 'tunable_not_found | cluster_node_not_found',
    413: 'payload_too_large',
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
