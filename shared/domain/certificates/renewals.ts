import { sql, type Kysely } from 'kysely';
import { createTask } from '#shared/jobs/tasks';
import { dispatchTask } from '#shared/jobs/dispatch';
import { inTransaction } from '#store/tx';
import type { CertificateRow, Database, Db } from '#store/tables';
import { issuanceTask } from './issuance.ts';

/** A managed certificate is renewed from this long before its `notAfter`. */
export const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Managed, active certificates whose renewal is due at `now`: issued (`ready`) and within 30 days of
 * `notAfter`, or a failed renewal whose backoff (`issuanceRetryAt`) has passed. Never one with an issuance
 * queued or running, and never a failed initial issuance (that waits for E22).
 */
export async function dueRenewals(db: Db, now: Date): Promise<CertificateRow[]> {
  const horizon = new Date(now.getTime() + RENEW_BEFORE_MS);
  return db
    .selectFrom('certificates')
    .selectAll()
    .where('type', '=', 'managed')
    .where('active', '=', true)
    .where('fingerprint', '<>', '')
    .where((eb) =>
      eb.or([
        eb.and([eb('issuance_status', '=', 'ready'), eb('not_after', '<=', horizon)]),
        eb.and([eb('issuance_status', '=', 'failed'), eb('issuance_operation', '=', 'renewal'), eb('issuance_retry_at', '<=', now)]),
      ]),
    )
    .orderBy('not_after')
    .orderBy('id')
    .execute();
}

/**
 * What the scheduled renewal function does: for each due certificate, in its own transaction (re-checked
 * under a row lock), the record becomes `queued` (renewal) and its issuance task is created, then sent.
 * Returns the ids of the certificates queued.
 */
export async function queueDueRenewals(db: Kysely<Database>, now: Date = new Date()): Promise<number[]> {
  const queued: number[] = [];
  for (const due of await dueRenewals(db, now)) {
    const task = await inTransaction(db, async (trx) => {
      await trx.selectFrom('certificates').select('id').where('id', '=', due.id).forUpdate().execute();
      const row = (await dueRenewals(trx, now)).find((r) => r.id === due.id);
      if (!row) return null;
      await trx.updateTable('certificates').set({ issuance_status: 'queued', issuance_operation: 'renewal', updated_at: sql<Date>`now()` }).where('id', '=', row.id).execute();
      return createTask(trx, { ...issuanceTask(row, 'renewal'), requestedBy: 'certificate renewals' });
    });
    if (!task) continue;
    await dispatchTask(task, db);
    queued.push(due.id);
  }
  return queued;
}
