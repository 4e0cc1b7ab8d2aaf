import { sql, type Kysely } from 'kysely';

/**
 * Task cancellation: a task may end `cancelled` (a queued one at once; a running one when its agent has
 * stopped the work and undone what it could). `cancel_requested_at` marks a running task whose agent has to
 * be told to stop: it learns it from the answer to its next progress report or heartbeat.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
    ALTER TABLE tasks ADD CONSTRAINT tasks_status_check CHECK (status IN ('queued','running','success','failed','interrupted','cancelled'));
    ALTER TABLE tasks ADD COLUMN cancel_requested_at timestamptz;
    ALTER TABLE tasks ADD COLUMN cancel_requested_by text NOT NULL DEFAULT '';
    CREATE INDEX tasks_cancel_requested ON tasks (node_id) WHERE status = 'running' AND cancel_requested_at IS NOT NULL;
  `.execute(db);
}
