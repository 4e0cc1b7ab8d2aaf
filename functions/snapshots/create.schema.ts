import type { EndpointInput, EndpointSchema } from '#http/spec';
import { taskViewSchema } from '#http/responses/task';
import { guestPath } from './responses.ts';

export const schema = {
  summary: "Snapshot a guest's datasets together (zfs snapshot ds1@name ds2@name …), the name checked as ZFS checks it",
  role: 'operator',
  method: 'POST',
  route: '/api/guests/{guestType}/{guestId}/snapshots',
  path: guestPath,
  body: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, maxLength: 255, description: 'the part after @: letters, digits, - _ . : and space' } },
    required: ['name'],
    additionalProperties: false,
  },
  responses: {
    202: 'snapshot_create_queued',
    400: 'validation_failed',
    404: 'jail_not_found | vm_not_found',
    409: 'snapshot_exists | guest_has_no_datasets',
    503: 'node_offline',
  },
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
