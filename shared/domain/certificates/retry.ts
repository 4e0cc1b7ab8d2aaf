import { sql } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import { activeExclusiveTask, type TaskPlan } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/jobs/protocol';
import type { Db } from '#store/tables';
import { toCertificateRecord, type CertificateRecord } from './record.ts';
import { requireCertificate } from './store.ts';
import { acmeDirectoryUrl, probeAcmeDirectory } from './acme-directory.ts';
import { issuanceTask } from './issuance.ts';

/**
 * E22: a new attempt at the failed initial issuance of a managed certificate — the only issuance retried by
 * hand (renewals retry themselves, backing off). Unknown → 404; not managed, already issued, or an issuance
 * task queued or running → 409 naming which; the ACME directory not answering (it is fetched before queuing)
 * → 502 acme_unreachable. Otherwise the record becomes `queued` (initial) and the issuance task is planned.
 * A record left `queued` or `processing` by a task that ended without reporting (interrupted) counts as failed.
 */
export async function planCertificateRetry(trx: Db, id: number, probe: (url: string) => Promise<void> = probeAcmeDirectory): Promise<TaskPlan<'certificate.issue'>> {
  const row = await requireCertificate(trx, id, true);
  if (row.type !== 'managed') throw conflict('certificate_not_managed', `certificate ${id} is ${row.type}, not managed: only ACME issuance is retried`);
  const holder = await activeExclusiveTask(trx, resourceKey.certificate(id));
  if (holder) throw conflict('certificate_issuance_active', `certificate ${id} has an issuance already: task ${holder.id} is ${holder.status}`);
  if (row.fingerprint !== '' || row.issuance_operation !== 'initial' || row.issuance_status === 'ready') {
    throw conflict('certificate_already_issued', `certificate ${id} is already issued (valid until ${row.not_after?.toISOString() ?? 'unknown'}): renewals retry on their own`);
  }
  const directoryUrl = acmeDirectoryUrl(row.staging);
  await probe(directoryUrl);
  await trx
    .updateTable('certificates')
    .set({ issuance_status: 'queued', issuance_operation: 'initial', issuance_error: '', issuance_retry_at: null, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
  return issuanceTask(row, 'initial');
}

/** E22's response data: the certificate record as the transaction left it. */
export async function certificateOfTask(trx: Db, payload: unknown): Promise<CertificateRecord> {
  return toCertificateRecord(await requireCertificate(trx, (payload as { certificateId: number }).certificateId));
}
