import { sql } from 'kysely';
import { raiseNotification } from '#domain/notifications/raise';
import type { CertificateRow, Db, TaskRow } from '#store/tables';
import { cancelledBeforeStart } from '#domain/task-undo';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { renewalBackoffMs } from './backoff.ts';

/**
 * What a certificate request replaced: `created` — the request made the record (POST /api/certificates); else the
 * issuance state an E22 retry or a scheduled renewal set aside (dates as ISO strings).
 */
export type CertificateUndo =
  | { created: true }
  | {
      issuance: {
        issuance_status: CertificateRow['issuance_status'];
        issuance_operation: CertificateRow['issuance_operation'];
        issuance_error: string;
        issuance_retry_at: string | null;
      };
    };

/** The issuance state of a record, to put back if the task about to change it is cancelled before it starts. */
export const issuanceUndo = (
  row: Pick<CertificateRow, 'issuance_status' | 'issuance_operation' | 'issuance_error' | 'issuance_retry_at'>,
): CertificateUndo => ({
  issuance: {
    issuance_status: row.issuance_status,
    issuance_operation: row.issuance_operation,
    issuance_error: row.issuance_error,
    issuance_retry_at: row.issuance_retry_at?.toISOString() ?? null,
  },
});

/**
 * A certificate task cancelled before it started is as if never requested: a record its request created goes
 * (its name is free again), a retry or renewal leaves the record as it was — no failure, no notification.
 */
async function undoCertificateRequest(trx: Db, id: number, undo: CertificateUndo | null): Promise<void> {
  if (!undo) return;
  if ('created' in undo) {
    await trx.deleteFrom('certificates').where('id', '=', id).execute();
    return;
  }
  await trx
    .updateTable('certificates')
    .set({ ...undo.issuance, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

const ENDED = new Set<TaskRow['status']>(['success', 'failed', 'interrupted', 'cancelled']);
/** The task kinds that install a certificate on its node; each ends in the record's `ready` or `failed`. */
export const CERTIFICATE_TASK_KINDS: ReadonlySet<string> = new Set(['certificate.issue', 'certificate.install', 'certificate.self-sign']);
type CertificateKind = 'certificate.issue' | 'certificate.install' | 'certificate.self-sign';

/**
 * What the store learns from an ended certificate task (`certificate.issue`, `.install`, `.self-sign`;
 * registered in shared/domain/task-outcomes.ts): success → `ready` with the host's fingerprint and validity
 * (for an imported one the agent has already checked the installed file against the recorded fingerprint:
 * a difference fails the task); anything else → `failed` with the task's
 * error (for ACME, the problem document's detail) in `issuanceError`. A failed initial issuance raises
 * `certificate_failed` and waits for E22; a failed renewal (the old certificate still installed) backs off —
 * `issuanceRetryAt` says when the scheduler tries again — and raises `certificate_expiring`.
 */
export async function applyCertificateTaskOutcome(trx: Db, task: TaskOf<CertificateKind>, now: Date = new Date()): Promise<void> {
  if (!ENDED.has(task.status)) return;
  const p = task.payload;
  if (cancelledBeforeStart(task)) {
    await undoCertificateRequest(trx, p.certificateId, task.undo as CertificateUndo | null);
    return;
  }
  const operation = 'operation' in p ? p.operation : 'initial';
  const row = await trx.selectFrom('certificates').selectAll().where('id', '=', p.certificateId).forUpdate().executeTakeFirst();
  if (!row) return;
  const r = task.result;
  if (task.status === 'success' && r) {
    await trx
      .updateTable('certificates')
      .set({
        issuance_status: 'ready',
        issuance_error: '',
        issuance_retry_at: null,
        issuance_failures: 0,
        fingerprint: r.fingerprint,
        not_before: r.notBefore,
        not_after: r.notAfter,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', row.id)
      .execute();
    return;
  }
  const error = task.error || `the ${task.kind} task ended ${task.status}`;
  const failures = row.issuance_failures + 1;
  const retryAt = operation === 'renewal' ? new Date(now.getTime() + renewalBackoffMs(failures)) : null;
  await trx
    .updateTable('certificates')
    .set({ issuance_status: 'failed', issuance_error: error, issuance_failures: failures, issuance_retry_at: retryAt, updated_at: sql<Date>`now()` })
    .where('id', '=', row.id)
    .execute();
  const subject = { type: 'certificate', id: row.id, status: 'failed' };
  if (operation === 'initial') {
    await raiseNotification(trx, {
      kind: 'certificate_failed',
      title: `Certificate ${row.name} (${row.domain}) could not be issued`,
      body: error,
      severity: 'error',
      scope: 'global',
      nodeId: row.node_id,
      subject,
    });
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
