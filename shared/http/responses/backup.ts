import { BACKUP_EVENT_STATUSES, type BackupEvent } from '#domain/backups/events';
import type { BackupJob } from '#domain/backups/jobs';
import type { RestoreResult } from '#domain/backups/restore';
import type { runQueued } from '#domain/backups/run-now';
import { describes } from './same.ts';
import { isoTime, isoTimeOrNull } from './time.ts';

const id = { type: 'integer', minimum: 1 } as const;

/** The Backup event record of spec part 2 (E12's rows). */
export const backupEventSchema = describes<BackupEvent>()({
  title: 'BackupEvent',
  type: 'object',
  properties: {
    id,
    jobId: id,
    mode: { type: 'string' },
    sourceDataset: { type: 'string' },
    targetEndpoint: { type: 'string' },
    status: { type: 'string', enum: BACKUP_EVENT_STATUSES },
    output: { type: 'string' },
    error: { type: 'string' },
    createdAt: isoTime,
    startedAt: isoTimeOrNull,
    completedAt: isoTimeOrNull,
    updatedAt: isoTime,
  },
  required: ['id', 'jobId', 'mode', 'sourceDataset', 'targetEndpoint', 'status', 'output', 'error', 'createdAt', 'startedAt', 'completedAt', 'updatedAt'],
  additionalProperties: false,
} as const);

/** Where a job replicates to: a member node, or an SSH endpoint outside the cluster (`BackupTarget`). */
const backupTargetSchema = {
  anyOf: [
    {
      type: 'object',
      properties: { kind: { type: 'string', const: 'node' }, nodeId: { type: 'string' }, dataset: { type: 'string' } },
      required: ['kind', 'nodeId', 'dataset'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        kind: { type: 'string', const: 'ssh' },
        user: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        hostKey: { type: 'string' },
        dataset: { type: 'string' },
      },
      required: ['kind', 'user', 'host', 'port', 'hostKey', 'dataset'],
      additionalProperties: false,
    },
    { type: 'null' },
  ],
} as const;

/** A backup job (`toBackupJob`). */
export const backupJobSchema = describes<BackupJob>()({
  title: 'BackupJob',
  type: 'object',
  properties: {
    id,
    name: { type: 'string' },
    nodeId: { type: 'string' },
    mode: { type: 'string' },
    sourceDataset: { type: 'string' },
    targetEndpoint: { type: 'string' },
    schedule: { type: 'string' },
    enabled: { type: 'boolean' },
    guest: {
      anyOf: [
        { type: 'object', properties: { type: { type: 'string', enum: ['jail', 'vm'] }, id }, required: ['type', 'id'], additionalProperties: false },
        { type: 'null' },
      ],
    },
    target: backupTargetSchema,
    retention: { type: 'integer', minimum: 0 },
    nextRunAt: isoTimeOrNull,
    createdAt: isoTime,
    updatedAt: isoTime,
  },
  required: [
    'id',
    'name',
    'nodeId',
    'mode',
    'sourceDataset',
    'targetEndpoint',
    'schedule',
    'enabled',
    'guest',
    'target',
    'retention',
    'nextRunAt',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
} as const);

/** A run queued now: the job, its event and the task. */
export const backupRunSchema = describes<Awaited<ReturnType<typeof runQueued>>>()({
  title: 'BackupRunQueued',
  type: 'object',
  properties: { jobId: id, eventId: id, taskId: id },
  required: ['jobId', 'eventId', 'taskId'],
  additionalProperties: false,
} as const);

/** E15's answer: the restore queued (`snapshot` null: the newest of the job's, resolved on the host). */
export const backupRestoreSchema = describes<RestoreResult>()({
  title: 'BackupRestoreQueued',
  type: 'object',
  properties: {
    jobId: id,
    eventId: id,
    taskId: id,
    dataset: { type: 'string' },
    snapshot: { type: ['string', 'null'] },
    outcome: { type: 'string', const: 'queued' },
  },
  required: ['jobId', 'eventId', 'taskId', 'dataset', 'snapshot', 'outcome'],
  additionalProperties: false,
} as const);
