/** The values of a task's status (`tasks.status`; shared/jobs/lifecycle.ts names their transitions). */
export const TASK_STATUSES = ['queued', 'running', 'success', 'failed', 'interrupted', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** A task in one of these is not over yet: it holds its resource and its node's queue may still deliver it. */
export const ACTIVE_STATUSES: TaskStatus[] = ['queued', 'running'];
