import { sql, type Kysely } from 'kysely';

/**
 * What the control plane knows about each node's agent: when it registered and last reported, at which
 * heartbeat interval (a node not heard from within three of them is offline), and a hash of the
 * last inventory so an unchanged report costs no write.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE nodes
      ADD COLUMN heartbeat_interval_s integer NOT NULL DEFAULT 10 CHECK (heartbeat_interval_s BETWEEN 1 AND 3600),
      ADD COLUMN agent_version text NOT NULL DEFAULT '',
      ADD COLUMN agent_started_at timestamptz,
      ADD COLUMN registered_at timestamptz,
      ADD COLUMN inventory_hash text NOT NULL DEFAULT '',
      ADD COLUMN inventory_at timestamptz;
  `.execute(db);
}
