import { sql } from 'kysely';
import type { Db } from '#store/tables';
import { setting } from '#shared/config/read';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';

/** How long ended tasks are kept (HM_TASK_RETENTION_DAYS). */
export function taskRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  return setting('HM_TASK_RETENTION_DAYS', env);
}

/** At most this many tasks per pass: one sweep's DELETE stays short; a backlog drains over a few passes. */
const BATCH = 5_000;

/**
 * Deletes ended tasks (success, failed, interrupted, cancelled) that finished before the retention, except
 * those the state still names as the task that applied something (a tunable's setting, a passthrough
 * device, a LUN: what re-applies it after a reboot reads them). Backup events keep their row (their
 * task_id is set NULL by the foreign key). Run by the scheduled sweep; returns how many were deleted.
 */
export async function pruneTasks(db: Db, days = taskRetentionDays()): Promise<number> {
  const res = await sql<{ n: number }>`
    WITH gone AS (
      DELETE FROM tasks WHERE id IN (
        SELECT t.id FROM tasks t
        WHERE t.status NOT IN (${sql.join(ACTIVE_STATUSES)})
          AND coalesce(t.finished_at, t.updated_at) < now() - ${days} * interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM tunable_settings s WHERE s.task_id = t.id)
          AND NOT EXISTS (SELECT 1 FROM ppt_devices p WHERE p.task_id = t.id)
          AND NOT EXISTS (SELECT 1 FROM iscsi_luns l WHERE l.task_id = t.id)
        ORDER BY t.id
        LIMIT ${BATCH}
      )
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM gone
  `.execute(db);
  return Number(res.rows[0]?.n ?? 0);
}
