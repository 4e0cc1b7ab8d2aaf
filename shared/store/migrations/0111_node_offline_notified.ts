import { sql, type Kysely } from 'kysely';

/** When `node_offline` was raised for a node's current silence; cleared once it is heard from again. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE nodes ADD COLUMN offline_notified_at timestamptz`.execute(db);
}
