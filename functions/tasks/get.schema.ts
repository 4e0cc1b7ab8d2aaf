import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';
import { taskViewSchema } from '#http/responses/task';

export const schema = {
  summary: 'A task: status, phase, progress, output tail, error and result of a piece of host work',
  role: 'viewer',
  method: 'GET',
  route: '/api/tasks/{id}',
  path: pathId('id'),
  responses: { 200: 'task_found', 404: 'task_not_found' },
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
