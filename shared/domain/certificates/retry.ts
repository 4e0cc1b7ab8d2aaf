import { sql } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import { activeExclusiveTask, type TaskPlan } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Db } from '#store/tables';
import { toCertificateRecord, type CertificateRecord } from './record.ts';
import { requireCertificate } from './store.ts';
import { acmeDirectoryUrl, probeAcmeDirectory } from './acme-directory.ts';
import { issuanceTask } from './issuance.ts';
import { issuanceUndo } from './outcomes.ts';

/**
 * E22's refusals, in order: unknown → 404; not managed, an issuance task queued or running, or already issued →
 * 409 naming which. Only the failed initial issuance of a managed certificate is retried by hand (renewals retry
 * themselves, backing off). A record left `queued` or `processing` by a task that ended without reporting
 * (interrupted) counts as failed. Returns the row.
 */
async function retryableCertificate(db: Db, id: number, forUpdate: boolean) {
  const row = await requireCertificate(db, id, forUpdate);
  if (row.type !== 'managed') throw conflict('certificate_not_managed', `certificate ${id} is ${row.type}, not managed: only ACME issuance is retried`);
  const holder = await activeExclusiveTask(db, resourceKey.certificate(id));
  if (holder) throw conflict('certificate_issuance_active', `certificate ${id} has an issuance already: task ${holder.id} is ${holder.status}`);
  if (row.fingerprint !== '' || row.issuance_operation !== 'initial' || row.issuance_status === 'ready') {
    throw conflict(
      'certificate_already_issued',
      `certificate ${id} is already issued (valid until ${row.not_after?.toISOString() ?? 'unknown'}): renewals retry on their own`,
    );
  }
  return row;
}

/**
 * E22, before its transaction: the refusals, then the ACME directory fetched (not answering → 502
 * acme_unreachable). Outside any transaction, so the store is never held while the ACME server is awaited
 * (PGlite serialises every transaction).
 */
export async function checkCertificateRetry(db: Db, id: number, probe: (url: string) => Promise<void> = probeAcmeDirectory): Promise<void> {
  const row = await retryableCertificate(db, id, false);
  await probe(acmeDirectoryUrl(row.staging));
}

/** E22 in its transaction: the refusals again (the row locked), the record `queued` (initial), the issuance task planned. */
export async function planCertificateRetry(trx: Db, id: number): Promise<TaskPlan<'certificate.issue'>> {
  const row = await retryableCertificate(trx, id, true);
  const undo = issuanceUndo(row);
  await trx
    .updateTable('certificates')
    .set({ issuance_status: 'queued', issuance_operation: 'initial', issuance_error: '', issuance_retry_at: null, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
  return { ...issuanceTask(row, 'initial'), undo };
}

/** E22's response data: the certificate record as the transaction left it. */
export async function certificateOfTask(trx: Db, payload: unknown): Promise<CertificateRecord> {
  return toCertificateRecord(await requireCertificate(trx, (payload as { certificateId: number }).certificateId));
}
