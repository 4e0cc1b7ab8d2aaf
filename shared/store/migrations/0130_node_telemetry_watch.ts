import { sql, type Kysely } from 'kysely';

/**
 * Until when someone reads a node's telemetry (an E14 poll, a console chart): while that lies ahead, the node's
 * agent sends every sample as it takes it; otherwise it sends them in batches, which costs far fewer requests.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE nodes ADD COLUMN telemetry_watched_until timestamptz`.execute(db);
}
