import { sql, type Kysely } from 'kysely';

/**
 * TLS certificates per node: `managed` ones are issued over ACME by the node's agent (HTTP-01),
 * whose account key and certificate key stay on the host; the store keeps what the host reported (fingerprint,
 * validity) and the state of the current issuance. `issuance_retry_at` is when a failed renewal is tried again
 * (backing off); `issuance_failures` counts consecutive failures for that backoff.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE certificates (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      domain text NOT NULL,
      type text NOT NULL CHECK (type IN ('managed', 'imported', 'self-signed')),
      staging boolean NOT NULL DEFAULT false,
      active boolean NOT NULL DEFAULT true,
      dynamic_dns_entry_id integer,
      issuance_status text NOT NULL CHECK (issuance_status IN ('queued', 'submitting', 'processing', 'ready', 'failed')),
      issuance_operation text NOT NULL DEFAULT 'initial' CHECK (issuance_operation IN ('initial', 'renewal')),
      issuance_error text NOT NULL DEFAULT '',
      issuance_retry_at timestamptz,
      issuance_failures integer NOT NULL DEFAULT 0,
      fingerprint text NOT NULL DEFAULT '',
      not_before timestamptz,
      not_after timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (node_id, name)
    );
    CREATE INDEX certificates_renewal ON certificates (not_after) WHERE type = 'managed';
  `.execute(db);
}
