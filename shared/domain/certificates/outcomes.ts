import { sql } from 'kysely';
import { raiseNotification } from '#shared/jobs/notify';
import type { Db, TaskRow } from '#store/tables';
import type { TaskPayloads } from '#shared/jobs/protocol';
import { renewalBackoffMs } from './backoff.ts';

/** What the agent's `certificate.issue` job reports when the certificate is installed. */
export interface IssuedCertificate {
  fingerprint: string;
  notBefore: string;
  notAfter: string;
}

const ENDED = new Set<TaskRow['status']>(['success', 'failed', 'interrupted', 'cancelled']);

/**
 * What the store learns from an ended `certificate.issue` task (registered in shared/domain/task-outcomes.ts):
 * success → `ready` with the host's fingerprint and validity; anything else → `failed` with the task's error
 * (the ACME problem document's detail) in `issuanceError`. A failed initial issuance raises
 * `certificate_failed` and waits for E22; a failed renewal (the old certificate still installed) backs off —
 * `issuanceRetryAt` says when the scheduler tries again — and raises `certificate_expiring`.
 */
export async function applyCertificateTaskOutcome(trx: Db, task: TaskRow, now: Date = new Date()): Promise<void> {
  if (task.kind !== 'certificate.issue' || !ENDED.has(task.status)) return;
  const p = task.payload as TaskPayloads['certificate.issue'];
  const row = await trx.selectFrom('certificates').selectAll().where('id', '=', p.certificateId).forUpdate().executeTakeFirst();
  if (!row) return;
  if (task.status === 'success') {
    const r = task.result as IssuedCertificate;
    await trx
      .updateTable('certificates')
      .set({ issuance_status: 'ready', issuance_error: '', issuance_retry_at: null, issuance_failures: 0, fingerprint: r.fingerprint, not_before: r.notBefore, not_after: r.notAfter, updated_at: sql<Date>`now()` })
      .where('id', '=', row.id)
      .execute();
    return;
  }
  const error = task.error || `the issuance task ended ${task.status}`;
  const failures = row.issuance_failures + 1;
  const retryAt = p.operation === 'renewal' ? new Date(now.getTime() + renewalBackoffMs(failures)) : null;
  await trx
    .updateTable('certificates')
    .set({ issuance_status: 'failed', issuance_error: error, issuance_failures: failures, issuance_retry_at: retryAt, updated_at: sql<Date>`now()` })
    .where('id', '=', row.id)
    .execute();
  const subject = { type: 'certificate', id: row.id, status: 'failed' };
  if (p.operation === 'initial') {
    await raiseNotification(trx, { kind: 'certificate_failed', title: `Certificate ${row.name} (${row.domain}) could not be issued`, body: error, severity: 'error', scope: 'global', nodeId: row.node_id, subject });
  } else {
    await raiseNotification(trx, {
      kind: 'certificate_expiring',
      title: `Certificate ${row.name} (${row.domain}) could not be renewed; it expires ${row.not_after?.toISOString() ?? 'soon'}`,
      body: `${error} — next attempt at ${retryAt!.toISOString()}`,
      severity: 'warning',
      scope: 'global',
      nodeId: row.node_id,
      subject,
    });
  }
}
