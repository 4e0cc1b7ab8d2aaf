import type { EndpointInput, EndpointSchema } from '#http/spec';
import { taskViewSchema } from '#http/responses/task';
import { guestPath, snapshotRef } from './responses.ts';

export const schema = {
  summary: "Destroy one of a guest's snapshots; refused while it is held, has clones or is a backup job's own",
  role: 'operator',
  method: 'POST',
  route: '/api/guests/{guestType}/{guestId}/snapshots/destroy',
  path: guestPath,
  body: {
    type: 'object',
    properties: { snapshot: { ...snapshotRef, description: 'dataset@name, one of the guest’s' } },
    required: ['snapshot'],
    additionalProperties: false,
  },
  responses: {
    202: 'snapshot_destroy_queued',
    400: 'validation_failed',
    404: 'jail_not_found | vm_not_found | snapshot_not_found',
    409: 'snapshot_protected',
    503: 'node_offline',
  },
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
