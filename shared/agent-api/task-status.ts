/** The values of a task's status (`tasks.status`; the job protocol, shared/jobs/protocol.ts, names their transitions). */
export const TASK_STATUSES = ['queued', 'running', 'success', 'failed', 'interrupted', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
