import type { FromSchema } from 'json-schema-to-ts';
import { TASK_STATUSES } from '#shared/agent-api/task-status';
import type { TaskView } from '#shared/jobs/tasks';
import { isoTime, isoTimeOrNull } from './time.ts';

/** A task as the API shows it (`toTaskView`): `GET /api/tasks/{id}`, the task lists, the agent's task reports. */
export const taskViewSchema = {
  title: 'TaskView',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    kind: { type: 'string' },
    nodeId: { type: 'string' },
    resource: { type: 'string' },
    status: { type: 'string', enum: TASK_STATUSES },
    phase: { type: 'string' },
    progress: { type: 'integer', minimum: 0, maximum: 100 },
    output: { type: 'string' },
    error: { type: 'string' },
    /** what the task produced (kind-specific), null until it has */
    result: {},
    requestedBy: { type: 'string' },
    exclusive: { type: 'boolean' },
    attempts: { type: 'integer', minimum: 0 },
    cancelRequestedAt: isoTimeOrNull,
    createdAt: isoTime,
    startedAt: isoTimeOrNull,
    finishedAt: isoTimeOrNull,
    updatedAt: isoTime,
  },
  required: [
    'id',
    'kind',
    'nodeId',
    'resource',
    'status',
    'phase',
    'progress',
    'output',
    'error',
    'result',
    'requestedBy',
    'exclusive',
    'attempts',
    'cancelRequestedAt',
    'createdAt',
    'startedAt',
    'finishedAt',
    'updatedAt',
  ],
  additionalProperties: false,
} as const;

/** The task view as the schema describes it. */
export type TaskViewData = FromSchema<typeof taskViewSchema>;

// The schema and `toTaskView`'s type must describe the same object: a member added, dropped or retyped on either
// side fails typecheck here, so the declared responses cannot drift from what the handlers return.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<TaskView, TaskViewData> = true;
void sameShape;
