import type { EndpointInput, EndpointSchema } from '#http/spec';

export const schema = {
  summary: "Agent, at start: its node's tasks still `running` were cut off by the restart; mark them interrupted",
  role: 'agent',
  method: 'POST',
  route: '/api/agent/tasks/interrupt-stale',
  responses: { 200: 'stale_tasks_interrupted' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
