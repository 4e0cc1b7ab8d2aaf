import { sql, type Kysely } from 'kysely';

/**
 * Backup runs: each job keeps when its next scheduled run is due (computed from its cron schedule; NULL for a
 * disabled job or one without a schedule). Each run's event points at its task through `task_id` (migration
 * 0100, shared with E15 restores); open events of a job are found by a partial index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE backup_jobs ADD COLUMN next_run_at timestamptz;
    CREATE INDEX backup_jobs_due ON backup_jobs (next_run_at, id) WHERE enabled AND next_run_at IS NOT NULL;
    CREATE INDEX backup_events_job_open ON backup_events (job_id) WHERE status IN ('queued', 'running');
  `.execute(db);
}
