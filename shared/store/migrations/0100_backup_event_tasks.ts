import { sql, type Kysely } from 'kysely';

/**
 * A backup event written for a task (an E15 restore) points at it, so the task's start and end move the event
 * (queued → running → success / failed) in the transactions that record them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE backup_events ADD COLUMN task_id integer REFERENCES tasks(id) ON DELETE SET NULL;
    CREATE UNIQUE INDEX backup_events_task ON backup_events (task_id) WHERE task_id IS NOT NULL;
  `.execute(db);
}
