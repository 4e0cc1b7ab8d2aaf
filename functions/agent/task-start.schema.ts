import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';

export const schema = {
  summary: 'Agent: claim a task before running it; answers the kind and payload to run (the queue message is only a pointer). `run: false` for a task already started or finished, or superseded by a newer one of its resource: ack its message, do not run it',
  role: 'agent',
  method: 'POST',
  route: '/api/agent/tasks/{id}/start',
  path: pathId('id'),
  responses: { 200: 'task_started', 404: 'task_not_found' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
