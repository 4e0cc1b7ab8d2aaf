import { idSetBody, type EndpointInput, type EndpointSchema } from '#http/spec';

export const schema = {
  operation: 'E21',
  summary: 'Delete exactly the given set of cluster notes, all or nothing',
  role: 'operator',
  method: 'POST',
  route: '/api/cluster/notes/bulk-delete',
  body: idSetBody,
  responses: { 200: 'cluster_notes_deleted', 404: 'cluster_note_not_found', 409: 'cluster_leadership_changed', 503: 'cluster_consensus_unavailable' },
  /** the ids deleted (E21) */
  data: {
    type: 'object',
    properties: { deleted: { type: 'array', items: { type: 'integer', minimum: 1 } } },
    required: ['deleted'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
