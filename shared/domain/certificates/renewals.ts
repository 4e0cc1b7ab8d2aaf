import { sql, type Kysely } from 'kysely';
import { createTask } from '#shared/jobs/tasks';
import { dispatchTask } from '#shared/jobs/dispatch';
import { inTransaction } from '#store/tx';
import type { CertificateRow, Database, Db } from '#store/tables';
import { issuanceTask } from './issuance.ts';
import { issuanceUndo } from './outcomes.ts';

/** A managed certificate is renewed from this long before its `notAfter`. */
export const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Managed, active certificates whose renewal is due at `now`: issued (`ready`) and within 30 days of
 * `notAfter`, or a failed renewal whose backoff (`issuanceRetryAt`) has passed. Never one with an issuance
 * queued or running, and never a failed initial issuance (that waits for E22).
 */
function dueQuery(db: Db, now: Date) {
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
    );
}

/** The certificates whose renewal is due at `now`, soonest expiry first. */
export async function dueRenewals(db: Db, now: Date): Promise<CertificateRow[]> {
  return dueQuery(db, now).orderBy('not_after').orderBy('id').execute();
}

/**
 * What the scheduled renewal function does: one scan for the due certificates, then for each, in its own
 * transaction, the row is locked and re-checked (still due: no concurrent pass or E22 took it), the record
 * becomes `queued` (renewal) and its issuance task is created, then sent. Returns the ids of the certificates queued.
 */
export async function queueDueRenewals(db: Kysely<Database>, now: Date = new Date()): Promise<number[]> {
  const queued: number[] = [];
  for (const due of await dueRenewals(db, now)) {
    const task = await inTransaction(db, async (trx) => {
      const row = await dueQuery(trx, now).where('id', '=', due.id).forUpdate().executeTakeFirst();
      if (!row) return null;
      await trx
        .updateTable('certificates')
        .set({ issuance_status: 'queued', issuance_operation: 'renewal', updated_at: sql<Date>`now()` })
        .where('id', '=', row.id)
        .execute();
      return createTask(trx, { ...issuanceTask(row, 'renewal'), undo: issuanceUndo(row), requestedBy: 'certificate renewals' });
    });
    if (!task) continue;
    await dispatchTask(task, db);
    queued.push(due.id);
  }
  return queued;
}
