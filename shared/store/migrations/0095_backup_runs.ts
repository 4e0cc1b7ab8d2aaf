import { sql, type Kysely } from 'kysely';

/**
 * Backup runs: each job keeps when its next scheduled run is due (computed from its cron schedule; NULL for a
 * disabled job or one without a schedule), and each event points at the task that runs it, so the task's
 * transitions move the event (queued → running → success | failed | interrupted).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE backup_jobs ADD COLUMN next_run_at timestamptz;
    CREATE INDEX backup_jobs_due ON backup_jobs (next_run_at, id) WHERE enabled AND next_run_at IS NOT NULL;
    ALTER TABLE backup_events ADD COLUMN task_id integer REFERENCES tasks(id) ON DELETE SET NULL;
    CREATE UNIQUE INDEX backup_events_task ON backup_events (task_id) WHERE task_id IS NOT NULL;
    CREATE INDEX backup_events_job_open ON backup_events (job_id) WHERE status IN ('queued', 'running');
  `.execute(db);
}
