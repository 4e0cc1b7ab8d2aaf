import { sql, type Kysely } from 'kysely';

/**
 * The cluster key that E16 (POST /api/cluster/join) checks: one row (the cluster is this deployment), holding
 * only the SHA-256 of the key — the key itself is shown once when it is created or rotated and never stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE cluster_settings (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      key_hash text NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
      key_rotated_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}
