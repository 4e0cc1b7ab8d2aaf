import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';
import { attempt } from './agent-schemas.ts';

export const schema = {
  summary: 'Agent: phase, 0–100 progress and optionally more output of a running task',
  role: 'agent',
  method: 'POST',
  route: '/api/agent/tasks/{id}/progress',
  path: pathId('id'),
  body: {
    type: 'object',
    properties: {
      attempt,
      phase: { type: 'string', maxLength: 200 },
      progress: { type: 'integer', minimum: 0, maximum: 100 },
      output: { type: 'string', maxLength: 65536 },
    },
    required: ['attempt', 'phase', 'progress'],
    additionalProperties: false,
  },
  responses: { 200: 'task_progress_recorded', 404: 'task_not_found', 409: 'task_not_running' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
