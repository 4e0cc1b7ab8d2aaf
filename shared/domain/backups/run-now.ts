import type { Transaction } from 'kysely';
import type { Database, TaskRow } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import { requireBackupJob } from './jobs.ts';
import { planBackupRun, recordQueuedEvent, requireRunnerMember } from './run-plan.ts';

/**
 * "Run now": the job exists (404), its runner is a member (409); 409 while a run or restore is active. A runner
 * that is offline gets the run when it is back (the task waits in its queue).
 */
export async function planRunNow(trx: Transaction<Database>, jobId: number): Promise<TaskPlan> {
  const job = await requireBackupJob(trx, jobId);
  await requireRunnerMember(trx, job);
  return planBackupRun(trx, job);
}

/** The 202's data; the run's `queued` event is written here, in the transaction that created the task. */
export async function runQueued(trx: Transaction<Database>, task: TaskRow): Promise<{ jobId: number; eventId: number; taskId: number }> {
  const eventId = await recordQueuedEvent(trx, task);
  return { jobId: (task.payload as { jobId: number }).jobId, eventId, taskId: task.id };
}
