import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { jailViewSchema } from '#http/responses/jail';

export const schema = {
  summary: 'A jail as the store holds it: node, state, persisted hooks and limits, what its host last reported, and its migration in flight',
  role: 'viewer',
  method: 'GET',
  route: '/api/jail/{ctid}',
  path: pathId('ctid'),
  responses: { 200: 'jail', 404: 'jail_not_found' },
  data: jailViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
