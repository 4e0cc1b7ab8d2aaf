import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';

export const schema = {
  summary: 'Cluster notes, newest first',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/notes',
  query: { type: 'object', properties: { ...pageQuery }, additionalProperties: false },
  responses: { 200: 'cluster_notes_listed' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
