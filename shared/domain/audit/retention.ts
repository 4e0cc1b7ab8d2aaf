import { sql } from 'kysely';
import type { Db } from '#store/tables';

/** How long audit rows are kept: HM_AUDIT_RETENTION_DAYS, 180 days unless set to a positive number. */
export function auditRetentionDays(env: NodeJS.ProcessEnv = process.env): number {
  const days = Number(env.HM_AUDIT_RETENTION_DAYS);
  return Number.isFinite(days) && days > 0 ? days : 180;
}

/** Deletes audit rows older than the retention (run by the scheduled sweep); returns how many. */
export async function pruneAudit(db: Db, days = auditRetentionDays()): Promise<number> {
  const res = await db.deleteFrom('audit_log').where('at', '<', sql<Date>`now() - ${days} * interval '1 day'`).executeTakeFirst();
  return Number(res.numDeletedRows);
}
