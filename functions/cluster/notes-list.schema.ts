import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { clusterNoteSchema } from '#http/responses/cluster';
import { pageOf } from '#http/responses/page';

export const schema = {
  summary: 'Cluster notes, newest first',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/notes',
  query: { type: 'object', properties: { ...pageQuery }, additionalProperties: false },
  responses: { 200: 'cluster_notes_listed' },
  data: pageOf(clusterNoteSchema),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
