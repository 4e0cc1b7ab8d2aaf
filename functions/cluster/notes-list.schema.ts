import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pageQuery } from '#domain/cluster/paging';

export const schema = {
  summary: 'Cluster notes, newest first',
  role: 'viewer',
  query: { type: 'object', properties: { ...pageQuery }, additionalProperties: false },
  responses: { 200: 'cluster_notes_listed' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
