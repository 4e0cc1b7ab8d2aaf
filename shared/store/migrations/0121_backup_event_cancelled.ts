import { sql, type Kysely } from 'kysely';

/**
 * A backup run an operator cancelled is recorded `cancelled`, as its task ends — not `failed` (which raised
 * "backup failed" for work nobody let finish). Beyond E12's listed statuses, as tasks are.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE backup_events DROP CONSTRAINT backup_events_status_check;
    ALTER TABLE backup_events ADD CONSTRAINT backup_events_status_check
      CHECK (status IN ('queued','running','success','failed','interrupted','cancelled'));
  `.execute(db);
}
