import type { addLun } from '#domain/iscsi/add-lun';
import { describes } from './same.ts';
import { isoTime } from './time.ts';

/** E13's answer: the LUN added, with the task that regenerates the target configuration. */
export const lunSchema = describes<Awaited<ReturnType<typeof addLun>>>()({
  title: 'IscsiLun',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    targetId: { type: 'integer', minimum: 1 },
    targetName: { type: 'string' },
    nodeId: { type: 'string' },
    lunNumber: { type: 'integer', minimum: 0 },
    zvol: { type: 'string' },
    /** the zvol's device node (`/dev/zvol/<zvol>`) */
    path: { type: 'string' },
    taskId: { type: 'integer', minimum: 1 },
    createdAt: isoTime,
  },
  required: ['id', 'targetId', 'targetName', 'nodeId', 'lunNumber', 'zvol', 'path', 'taskId', 'createdAt'],
  additionalProperties: false,
} as const);
