import { nodeQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { tunableNameSchema, tunableValueSchema } from '#domain/tunables/settings';
import { isoTime } from '#http/responses/time';

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
  data: {
    title: 'TunableSetting',
    // the persisted setting; the task applies it with sysctl(8)
    type: 'object',
    properties: {
      nodeId: { type: 'string' },
      name: { type: 'string' },
      value: { type: 'string' },
      type: { type: 'string' },
      previousValue: { type: 'string' },
      taskId: { type: ['integer', 'null'], minimum: 1 },
      updatedAt: isoTime,
    },
    required: ['nodeId', 'name', 'value', 'type', 'previousValue', 'taskId', 'updatedAt'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
