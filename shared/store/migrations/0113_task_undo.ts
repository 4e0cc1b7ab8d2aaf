import { sql, type Kysely } from 'kysely';

/**
 * What a task's request changed in the store, as it was before (`undo`): a task cancelled before it started is
 * as if never requested, so its outcome puts these values back in the cancel's transaction. Cleared, like the
 * payload's secrets, once the task has ended (a previous cloud-init may hold passwords).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE tasks ADD COLUMN undo jsonb`.execute(db);
}
