import { sql } from 'kysely';
import type { Db } from '#store/tables';
import type { TaskStatus } from '#shared/agent-api/task-status';
import { raiseNotification } from '#domain/notifications/raise';
import type { BackupEventStatus } from './events.ts';
import { cancelledBeforeStart } from '#domain/task-undo';
import type { KindOutcome } from '#shared/jobs/lifecycle';

/** The replication output an event keeps: the tail, where zfs's last words are. */
export const EVENT_OUTPUT_TAIL = 16 * 1024;

/** A run's event follows its task: a run an operator cancelled is `cancelled`, not a failure. */
const EVENT_STATUS: Record<TaskStatus, BackupEventStatus> = {
  queued: 'queued',
  running: 'running',
  success: 'success',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

/** `mode: full` / `mode: incremental`, the line the agent reports once it has decided (agent/jobs/backup-run.ts). */
export const modeOf = (output: string): string => /^mode: (full|incremental)$/m.exec(output)?.[1] ?? '';

/**
 * A `backup.run` task's transition moves its event, in the same transaction (called by start, finish, the
 * interruption of stale tasks and the sweeper through the task outcome): status, times, the output tail, the
 * error. A run that ends `failed` raises a `backup_failed` notification, one cancelled while it ran a
 * `backup_cancelled` one (information: someone chose it). A run cancelled before it started leaves no event.
 */
export const applyBackupRunOutcome: KindOutcome<'backup.run'> = async (trx: Db, task) => {
  // cancelled before it started: the run never happened, so neither did its event (the job's schedule goes on)
  if (cancelledBeforeStart(task)) {
    await trx.deleteFrom('backup_events').where('task_id', '=', task.id).execute();
    return;
  }
  const status = EVENT_STATUS[task.status];
  const final = status !== 'queued' && status !== 'running';
  const mode = modeOf(task.output);
  const ev = await trx
    .updateTable('backup_events')
    .set({
      status,
      error: task.error,
      output: task.output.slice(-EVENT_OUTPUT_TAIL),
      ...(mode ? { mode } : {}),
      started_at: sql<Date>`coalesce(started_at, ${task.started_at ?? null}::timestamptz, CASE WHEN ${status} <> 'queued' THEN now() END)`,
      completed_at: final ? sql<Date>`coalesce(${task.finished_at ?? null}::timestamptz, now())` : null,
      updated_at: sql<Date>`now()`,
    })
    .where('task_id', '=', task.id)
    .returning(['id', 'job_id'])
    .executeTakeFirst();
  if (!ev || (status !== 'failed' && status !== 'cancelled')) return;
  const job = await trx.selectFrom('backup_jobs').select(['name']).where('id', '=', ev.job_id).executeTakeFirst();
  await raiseNotification(trx, {
    kind: status === 'failed' ? 'backup_failed' : 'backup_cancelled',
    title: `Backup job ${ev.job_id}${job ? ` (${job.name})` : ''} ${status}`,
    body: task.error,
    severity: status === 'failed' ? 'error' : 'info',
    scope: 'global',
    nodeId: task.node_id,
    subject: { type: 'backup_job', id: ev.job_id, kind: 'backup.run', status },
  });
};

/**
 * Safety net for events whose task ended by a path that applies no outcome: they end as their task did, never
 * `queued` or `running` forever. (Events without a task — a seed's display rows — are left as they are.)
 * Returns how many it moved.
 */
export async function settleOrphanedEvents(db: Db): Promise<number> {
  const open = await db
    .selectFrom('backup_events as e')
    .innerJoin('tasks as t', 't.id', 'e.task_id')
    .select(['e.id', 't.status', 't.error'])
    .where('e.status', 'in', ['queued', 'running'])
    .where('t.status', 'not in', ['queued', 'running'])
    .limit(500)
    .execute();
  for (const e of open) {
    await db
      .updateTable('backup_events')
      .set({ status: EVENT_STATUS[e.status], error: e.error, completed_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
      .where('id', '=', e.id)
      .where('status', 'in', ['queued', 'running'])
      .execute();
  }
  return open.length;
}
