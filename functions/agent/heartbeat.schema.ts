import type { EndpointInput, EndpointSchema } from '#http/spec';

export const schema = {
  summary: "Agent: sign of life; the node counts as online while these arrive (DESIGN §10). Also sweeps the node's queued tasks",
  role: 'agent',
  method: 'POST',
  route: '/api/agent/heartbeat',
  responses: { 200: 'heartbeat_recorded', 404: 'node_not_registered' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
