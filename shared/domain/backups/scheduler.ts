import type { Kysely } from 'kysely';
import type { Database, TaskRow } from '#store/tables';
import { inTransaction } from '#store/tx';
import { onlineSql } from '#store/presence';
import { activeExclusiveTask, createTask } from '#shared/jobs/tasks';
import { dispatchTask } from '#shared/jobs/dispatch';
import { raiseNotification } from '#domain/notifications/raise';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { DomainError } from '#shared/errors/domain-errors';
import { nextRunAfter } from './schedule.ts';
import { planBackupRun, recordQueuedEvent } from './run-plan.ts';
import { settleOrphanedEvents } from './run-events.ts';

/** Who the scheduler's tasks are requested by. */
export const SCHEDULER = 'backup-scheduler';

export interface ScheduleResult {
  /** task ids of the runs queued */
  queued: number[];
  /** due jobs whose previous run (or a restore) is still active: this slot is skipped */
  busy: number[];
  /** due jobs that could not be planned (e.g. the guest is gone); the reason is a failed event */
  refused: number[];
  /** events settled because their task had ended without moving them */
  settled: number;
}

/**
 * One pass of the backup schedule (functions/cluster/backups-schedule.ts, every minute; in-process under
 * `npm start`). Each enabled job whose `next_run_at` has passed and whose runner is a member heard from within
 * 3 heartbeats gets ONE run — a task on the runner's queue plus its `queued` event, in one transaction — and
 * its `next_run_at` moves to the schedule's first slot after now. A runner that is offline keeps its jobs due,
 * so when it returns each runs once, not once per missed slot. A job whose last run is still active skips the
 * slot. Tasks are sent after commit (FIFO deduplication on the task id makes a repeated send harmless).
 */
export async function scheduleDueRuns(db: Kysely<Database>, o: { now?: Date; limit?: number } = {}): Promise<ScheduleResult> {
  const now = o.now ?? new Date();
  const out: ScheduleResult = { queued: [], busy: [], refused: [], settled: 0 };
  const due = await db
    .selectFrom('backup_jobs as j')
    .innerJoin('nodes as n', 'n.id', 'j.node_id')
    .select(['j.id'])
    .where('j.enabled', '=', true)
    .where('j.next_run_at', '<=', now)
    .where('n.status', '=', 'member')
    // the runner is online at `now`
    .where(onlineSql('n', now))
    .orderBy('j.next_run_at')
    .orderBy('j.id')
    .limit(o.limit ?? 500)
    .execute();
  const toSend: TaskRow[] = [];
  for (const { id } of due) {
    const r = await inTransaction(db, async (trx) => {
      const job = await trx
        .selectFrom('backup_jobs')
        .selectAll()
        .where('id', '=', id)
        .where('next_run_at', '<=', now)
        .where('enabled', '=', true)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!job) return null; // another scheduler took it
      const next = nextRunAfter(job.schedule, now);
      await trx.updateTable('backup_jobs').set({ next_run_at: next }).where('id', '=', id).execute();
      if (await activeExclusiveTask(trx, resourceKey.backupJob(id))) return 'busy' as const;
      try {
        const task = await createTask(trx, { ...(await planBackupRun(trx, job)), requestedBy: SCHEDULER });
        await recordQueuedEvent(trx, task);
        return task;
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        // the run cannot even be planned: E12 shows it as a failed run with the reason
        await trx
          .insertInto('backup_events')
          .values({
            job_id: id,
            node_id: job.node_id,
            source_dataset: job.source_dataset,
            target_endpoint: job.target_endpoint,
            mode: '',
            output: '',
            status: 'failed',
            error: e.detail,
            started_at: now,
            completed_at: now,
          })
          .execute();
        await raiseNotification(trx, {
          kind: 'backup_failed',
          title: `Backup job ${id} (${job.name}) could not run`,
          body: e.detail,
          severity: 'error',
          scope: 'global',
          nodeId: job.node_id,
          subject: { type: 'backup_job', id, kind: 'backup.run', status: 'failed' },
        });
        return 'refused' as const;
      }
    });
    if (r === 'busy') out.busy.push(id);
    else if (r === 'refused') out.refused.push(id);
    else if (r) {
      toSend.push(r);
      out.queued.push(r.id);
    }
  }
  for (const t of toSend) await dispatchTask(t, db);
  out.settled = await settleOrphanedEvents(db);
  return out;
}
