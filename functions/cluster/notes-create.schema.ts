import type { EndpointInput, EndpointSchema } from '#http/spec';
import { NOTE_CONTENT_MAX, NOTE_TITLE_MAX } from '#domain/cluster/notes';
import { clusterNoteSchema } from '#http/responses/cluster';

export const schema = {
  summary: 'Create a cluster note',
  role: 'operator',
  method: 'POST',
  route: '/api/cluster/notes',
  body: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: NOTE_TITLE_MAX, pattern: '\\S' },
      content: { type: 'string', maxLength: NOTE_CONTENT_MAX },
    },
    required: ['title'],
    additionalProperties: false,
  },
  responses: { 201: 'cluster_note_created' },
  data: clusterNoteSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
