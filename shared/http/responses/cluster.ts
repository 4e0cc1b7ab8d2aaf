import type { conflictReport } from '#domain/cluster/join-report';
import type { createNote } from '#domain/cluster/notes';
import { describes } from './same.ts';
import { isoTime } from './time.ts';

/** A cluster note. */
export const clusterNoteSchema = describes<Awaited<ReturnType<typeof createNote>>>()({
  title: 'ClusterNote',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    title: { type: 'string' },
    content: { type: 'string' },
    createdAt: isoTime,
    updatedAt: isoTime,
  },
  required: ['id', 'title', 'content', 'createdAt', 'updatedAt'],
  additionalProperties: false,
} as const);

const joinEntrySchema = {
  type: 'object',
  properties: {
    guestId: { type: 'integer' },
    guestType: { type: 'string', enum: ['jail', 'vm'] },
    name: { type: 'string' },
    nodeId: { type: 'string' },
    /** the guest's row in the store, 0 when only its host reports it */
    recordId: { type: 'integer', minimum: 0 },
  },
  required: ['guestId', 'guestType', 'name', 'nodeId', 'recordId'],
  additionalProperties: false,
} as const;

/** The Cluster join conflict report of spec part 2: the `data` of E16's 409 `cluster_join_conflict`. */
export const joinConflictReportSchema = describes<NonNullable<ReturnType<typeof conflictReport>>>()({
  title: 'JoinConflictReport',
  type: 'object',
  properties: {
    conflicts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          entries: { type: 'array', items: joinEntrySchema },
          guestId: { type: 'integer' },
          reason: { type: 'string', enum: ['invalid_guest_id', 'guest_id_in_use', 'guest_busy'] },
        },
        required: ['entries', 'guestId', 'reason'],
        additionalProperties: false,
      },
    },
    /** lowercase hex SHA-256 of the canonical entry list */
    digest: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    entries: { type: 'array', items: joinEntrySchema },
    inFlightGuestIds: { type: 'array', items: { type: 'integer' } },
  },
  required: ['conflicts', 'digest', 'entries', 'inFlightGuestIds'],
  additionalProperties: false,
} as const);
