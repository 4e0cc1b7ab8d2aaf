import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';

export const schema = {
  summary: 'Agent: claim a task before running it. `run: false` for a task already started or finished: ack its message, do not run it again',
  role: 'agent',
  method: 'POST',
  route: '/api/agent/tasks/{id}/start',
  path: pathId('id'),
  responses: { 200: 'task_started', 404: 'task_not_found' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
