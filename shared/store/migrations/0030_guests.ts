import { sql, type Kysely } from 'kysely';

/**
 * Guests (jails and VMs) share one id space across the cluster (1–9999): a jail's CTID
 * and a VM's RID are both guest ids, so one table holds both and its primary key enforces uniqueness.
 * Type-specific configuration lives in `config` (jsonb), written by the jail and VM capabilities.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE guests (
      id integer PRIMARY KEY CHECK (id BETWEEN 1 AND 9999),
      type text NOT NULL CHECK (type IN ('jail','vm')),
      node_id text NOT NULL REFERENCES nodes(id),
      name text NOT NULL,
      state text NOT NULL DEFAULT 'unknown',
      config jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX guests_node ON guests (node_id);
  `.execute(db);
}
