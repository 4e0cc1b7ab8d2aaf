import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';
import { attempt } from './agent-schemas.ts';

export const schema = {
  summary: 'Agent: the outcome of a task. Idempotent: the same report again changes nothing',
  role: 'agent',
  method: 'POST',
  route: '/api/agent/tasks/{id}/finish',
  path: pathId('id'),
  body: {
    type: 'object',
    properties: {
      attempt,
      status: { type: 'string', enum: ['success', 'failed'] },
      error: { type: 'string', maxLength: 65536 },
      output: { type: 'string', maxLength: 262144 },
      result: {},
    },
    required: ['attempt', 'status'],
    additionalProperties: false,
  },
  responses: { 200: 'task_finished', 404: 'task_not_found', 409: 'task_already_finished' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
