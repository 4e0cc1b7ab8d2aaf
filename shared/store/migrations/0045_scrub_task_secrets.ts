import { sql, type Kysely } from 'kysely';

/**
 * Tasks that ended before secrets were scrubbed at the end of a task still hold VNC passwords and cloud-init
 * user data / meta-data in their payload; remove them (the same fields as shared/jobs/secrets).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE tasks SET payload = payload - 'password' WHERE kind = 'vm.vnc' AND status NOT IN ('queued', 'running');
    UPDATE tasks SET payload = payload - 'data' - 'metadata' WHERE kind = 'vm.cloud-init' AND status NOT IN ('queued', 'running');
  `.execute(db);
}

export async function down(): Promise<void> {
  // secrets removed are gone; nothing to restore
}
