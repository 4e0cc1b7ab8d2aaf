import { hooksSchema } from '#shared/agent-api/jail-hooks';
import type { migrationResult } from '#domain/jails/migrate';
import type { setLifecycleHooks } from '#domain/jails/set-hooks';
import type { JailCpuLimit } from '#domain/jails/types';
import type { jailView } from '#domain/jails/view';
import { describes } from './same.ts';
import { isoTime } from './time.ts';

const ctId = { type: 'integer', minimum: 1 } as const;
const cpuSet = { type: 'array', items: { type: 'integer', minimum: 0 } } as const;

/** The Jail CPU limit record of spec part 2 (E4's answer; `memory` in bytes, 0 = none). */
export const jailCpuLimitSchema = describes<JailCpuLimit>()({
  title: 'JailCpuLimit',
  type: 'object',
  properties: { cores: { type: 'integer', minimum: 0 }, cpuSet, ctId, memory: { type: 'integer', minimum: 0 }, resourceLimits: { type: 'boolean' } },
  required: ['cores', 'cpuSet', 'ctId', 'memory', 'resourceLimits'],
  additionalProperties: false,
} as const);

/** E3's answer: the six phases as persisted, and the task that writes them to the host. */
export const jailHooksRecordSchema = describes<Awaited<ReturnType<typeof setLifecycleHooks>>>()({
  title: 'JailHooksUpdated',
  type: 'object',
  properties: { ctId, hooks: hooksSchema, taskId: { type: 'integer', minimum: 1 } },
  required: ['ctId', 'hooks', 'taskId'],
  additionalProperties: false,
} as const);

/** E20's answer (spec part 2, Jail migration result). */
export const jailMigrationSchema = describes<ReturnType<typeof migrationResult>>()({
  title: 'JailMigrationQueued',
  type: 'object',
  properties: { guestId: ctId, outcome: { type: 'string', const: 'queued' }, taskId: { type: 'integer', minimum: 1 } },
  required: ['guestId', 'outcome', 'taskId'],
  additionalProperties: false,
} as const);

const jailState = { type: 'string', enum: ['running', 'stopped'] } as const;

/** A jail as its host last reported it (`JailInventory`). */
const jailInventorySchema = {
  type: 'object',
  properties: {
    ctid: ctId,
    name: { type: 'string' },
    state: jailState,
    jid: { type: ['integer', 'null'] },
    hostname: { type: 'string' },
    path: { type: 'string' },
    dataset: { type: ['string', 'null'] },
    hooks: hooksSchema,
    cpuSet,
    memoryBytes: { type: 'integer', minimum: 0 },
    memoryUsedBytes: { type: ['integer', 'null'] },
  },
  required: ['ctid', 'name', 'state', 'jid', 'hostname', 'path', 'dataset', 'hooks', 'cpuSet', 'memoryBytes', 'memoryUsedBytes'],
  additionalProperties: false,
} as const;

/** A jail as `GET /api/jail/{ctid}` shows it (`jailView`): the persisted configuration and what its host last reported. */
export const jailViewSchema = describes<ReturnType<typeof jailView>>()({
  title: 'Jail',
  type: 'object',
  properties: {
    ctId,
    name: { type: 'string' },
    nodeId: { type: 'string' },
    state: { type: 'string' },
    dataset: { type: ['string', 'null'] },
    path: { type: 'string' },
    hostname: { type: 'string' },
    hooks: hooksSchema,
    cpu: jailCpuLimitSchema,
    host: jailInventorySchema,
    updatedAt: isoTime,
    // a queued or running migration: the task and the node the jail goes to
    moving: {
      anyOf: [
        {
          type: 'object',
          properties: { taskId: { type: 'integer', minimum: 1 }, targetNodeId: { type: 'string' } },
          required: ['taskId', 'targetNodeId'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    },
  },
  required: ['ctId', 'name', 'nodeId', 'state', 'dataset', 'path', 'hostname', 'hooks', 'cpu', 'host', 'updatedAt', 'moving'],
  additionalProperties: false,
} as const);
