import type { GuestStorage } from '#domain/snapshots/guest-snapshots';
import { describes } from '#http/responses/same';

const strings = { type: 'array', items: { type: 'string' } } as const;

/** The guest path of the snapshot endpoints: `/api/guests/{guestType}/{guestId}/…`. */
export const guestPath = {
  type: 'object',
  properties: { guestType: { type: 'string', enum: ['jail', 'vm'] }, guestId: { type: 'integer', minimum: 1, maximum: 2147483647 } },
  required: ['guestType', 'guestId'],
  additionalProperties: false,
} as const;

/** A full snapshot name (`dataset@name`) as the body names one. */
export const snapshotRef = { type: 'string', minLength: 3, maxLength: 255, pattern: '^[A-Za-z0-9\\-_.:%/ ]+@[A-Za-z0-9\\-_.: ]+$' } as const;

export const guestSnapshotsSchema = describes<GuestStorage>()({
  title: 'GuestSnapshots',
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['jail', 'vm'] },
    id: { type: 'integer' },
    name: { type: 'string' },
    nodeId: { type: 'string' },
    online: { type: 'boolean' },
    datasets: strings,
    snapshots: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          snapshot: { type: 'string' },
          dataset: { type: 'string' },
          name: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time' },
          usedBytes: { type: 'integer' },
          holds: strings,
          clones: strings,
          backupJob: { type: ['integer', 'null'] },
        },
        required: ['snapshot', 'dataset', 'name', 'createdAt', 'usedBytes', 'holds', 'clones', 'backupJob'],
        additionalProperties: false,
      },
    },
  },
  required: ['type', 'id', 'name', 'nodeId', 'online', 'datasets', 'snapshots'],
  additionalProperties: false,
});
