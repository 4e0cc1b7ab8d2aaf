import type { EndpointInput, EndpointSchema } from '#http/spec';
import { taskViewSchema } from '#http/responses/task';
import { guestPath, snapshotRef } from './responses.ts';

export const schema = {
  summary: 'Roll a guest dataset back to a snapshot: the newest, or with destroyNewer the newer ones are destroyed (named in the answer)',
  role: 'operator',
  method: 'POST',
  route: '/api/guests/{guestType}/{guestId}/snapshots/rollback',
  path: guestPath,
  body: {
    type: 'object',
    properties: {
      snapshot: { ...snapshotRef, description: 'dataset@name, one of the guest’s' },
      destroyNewer: { type: 'boolean', default: false, description: 'zfs rollback -r: destroy the snapshots newer than this one' },
    },
    required: ['snapshot'],
    additionalProperties: false,
  },
  responses: {
    202: 'snapshot_rollback_queued',
    400: 'validation_failed',
    404: 'jail_not_found | vm_not_found | snapshot_not_found',
    409: 'snapshot_not_newest | snapshot_protected',
    503: 'node_offline',
  },
  data: {
    type: 'object',
    properties: { task: taskViewSchema, destroys: { type: 'array', items: { type: 'string' }, description: 'the snapshots the rollback destroys' } },
    required: ['task', 'destroys'],
    additionalProperties: false,
  },
  errorData: {
    snapshot_not_newest: {
      type: 'object',
      properties: { wouldDestroy: { type: 'array', items: { type: 'string' } } },
      required: ['wouldDestroy'],
      additionalProperties: false,
    },
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
