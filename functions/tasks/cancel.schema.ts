import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';
import { taskViewSchema } from '#http/responses/task';

export const schema = {
  summary:
    'Cancel a task: a queued one ends `cancelled` at once (200); a running one is signalled to its agent, which stops the command, undoes what the job can undo and reports `cancelled` (202, follow the task)',
  role: 'operator',
  method: 'POST',
  route: '/api/tasks/{id}/cancel',
  path: pathId('id'),
  responses: { 200: 'task_cancelled', 202: 'task_cancel_requested', 400: 'validation_failed', 404: 'task_not_found', 409: 'task_already_finished' },
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
