import type { CertificateRow, Db } from '#store/tables';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { toCertificateRecord, type CertificateRecord } from './record.ts';
import { CERTIFICATE_TASK_KINDS } from './outcomes.ts';

/** Phases the agent's certificate jobs report once the ACME server is validating or has issued, or the files are being installed. */
const PROCESSING_PHASES = new Set(['processing', 'installing', 'installed']);

/**
 * Records as the API shows them: while a certificate's task runs, `issuanceStatus` follows it —
 * `submitting` (the agent is placing the ACME order) then `processing` (the challenge is being validated, the
 * certificate finalised and installed); the store keeps `queued` until the task ends.
 */
export async function certificateViews(db: Db, rows: CertificateRow[]): Promise<CertificateRecord[]> {
  const queued = rows.filter((r) => r.issuance_status === 'queued');
  const running = new Map<string, string>();
  if (queued.length) {
    const tasks = await db
      .selectFrom('tasks')
      .select(['resource', 'phase'])
      .where(
        'resource',
        'in',
        queued.map((r) => resourceKey.certificate(r.id)),
      )
      .where('kind', 'in', [...CERTIFICATE_TASK_KINDS])
      .where('status', '=', 'running')
      .execute();
    for (const t of tasks) running.set(t.resource, t.phase);
  }
  return rows.map((row) => {
    const rec = toCertificateRecord(row);
    const phase = running.get(resourceKey.certificate(row.id));
    if (phase === undefined) return rec;
    return { ...rec, issuanceStatus: PROCESSING_PHASES.has(phase) ? 'processing' : 'submitting' };
  });
}
