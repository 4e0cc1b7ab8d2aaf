import { sql, type Kysely } from 'kysely';

/**
 * The SSH host key fingerprints (`SHA256:…`) each node reported at registration: peers connect to a node's
 * host only when it presents one of these keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE nodes ADD COLUMN ssh_host_keys jsonb NOT NULL DEFAULT '[]'::jsonb;`.execute(db);
}
