import { sql } from 'kysely';
import type { Db } from '#store/tables';
import { setting } from '#shared/config/read';

/** How long audit rows are kept (HM_AUDIT_RETENTION_DAYS). */
export function auditRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  return setting('HM_AUDIT_RETENTION_DAYS', env);
}

/** Deletes audit rows older than the retention (run by the scheduled sweep); returns how many. */
export async function pruneAudit(db: Db, days = auditRetentionDays()): Promise<number> {
  const res = await db.deleteFrom('audit_log').where('at', '<', sql<Date>`now() - ${days} * interval '1 day'`).executeTakeFirst();
  return Number(res.numDeletedRows);
}
