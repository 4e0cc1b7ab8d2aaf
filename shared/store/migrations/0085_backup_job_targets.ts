import { sql, type Kysely } from 'kysely';

/**
 * Backup jobs that run: what is sent (a dataset, or a jail's or VM's datasets), where (another member node's
 * dataset, or an SSH endpoint whose host key is pinned), and how many job snapshots each side keeps.
 * `target_endpoint` stays the human-readable label E12 shows and searches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE backup_jobs ADD COLUMN guest_type text CHECK (guest_type IN ('jail','vm'));
    ALTER TABLE backup_jobs ADD COLUMN guest_id integer CHECK (guest_id BETWEEN 1 AND 9999);
    ALTER TABLE backup_jobs ADD CONSTRAINT backup_jobs_guest CHECK ((guest_type IS NULL) = (guest_id IS NULL));
    ALTER TABLE backup_jobs ADD COLUMN target_node_id text REFERENCES nodes(id);
    ALTER TABLE backup_jobs ADD COLUMN target_dataset text NOT NULL DEFAULT '';
    ALTER TABLE backup_jobs ADD COLUMN target_ssh_user text;
    ALTER TABLE backup_jobs ADD COLUMN target_ssh_host text;
    ALTER TABLE backup_jobs ADD COLUMN target_ssh_port integer CHECK (target_ssh_port BETWEEN 1 AND 65535);
    ALTER TABLE backup_jobs ADD COLUMN target_ssh_host_key text;
    ALTER TABLE backup_jobs ADD COLUMN retention integer NOT NULL DEFAULT 7 CHECK (retention BETWEEN 1 AND 1000);
    CREATE INDEX backup_jobs_guest ON backup_jobs (guest_type, guest_id) WHERE guest_type IS NOT NULL;
  `.execute(db);
}
