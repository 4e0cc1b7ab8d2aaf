import { sql } from 'kysely';
import { conflict, ValidationError } from '#shared/errors/domain-errors';
import type { Enqueue, TaskPlan } from '#shared/jobs/tasks';
import type { CertificateRow, Db } from '#store/tables';
import { targetNode } from '#domain/pools/target-node';
import { toCertificateRecord, type CertificateRecord } from './record.ts';
import { issuanceTask } from './issuance.ts';
import { checkImportedCertificate } from './imported.ts';
import { installTask, selfSignTask } from './install-tasks.ts';
import type { CertificateUndo } from './outcomes.ts';

interface NewCertificate {
  name: string;
  /** required for managed and self-signed; for imported, defaults to the certificate's first DNS name */
  domain?: string;
  type: 'managed' | 'imported' | 'self-signed';
  staging?: boolean;
  nodeId?: string;
  /** imported only: the certificate (PEM), optionally followed by its chain */
  certificatePem?: string;
  /** imported only, write-only: never stored in the record, answered or logged; a task secret to the agent */
  privateKeyPem?: string;
}

/** The type's fields: `domain` for managed/self-signed, both PEMs for imported and only for it (400 naming the field). */
function checkFields(c: NewCertificate): void {
  const problems: { field: string; problem: string }[] = [];
  if (c.type === 'imported') {
    for (const f of ['certificatePem', 'privateKeyPem'] as const)
      if (c[f] === undefined) problems.push({ field: f, problem: 'is required for an imported certificate' });
    if (c.staging !== undefined) problems.push({ field: 'staging', problem: 'applies to managed (ACME) certificates only' });
  } else {
    if (c.domain === undefined) problems.push({ field: 'domain', problem: `is required for a ${c.type} certificate` });
    for (const f of ['certificatePem', 'privateKeyPem'] as const)
      if (c[f] !== undefined) problems.push({ field: f, problem: 'applies to imported certificates only' });
    if (c.type === 'self-signed' && c.staging !== undefined) problems.push({ field: 'staging', problem: 'applies to managed (ACME) certificates only' });
  }
  if (problems.length) throw new ValidationError(problems);
}

/**
 * A new certificate on a node (default: the primary node), recorded `queued` with its task queued in the same
 * transaction: managed → the ACME issuance; imported → checked first (parseable, key matches, not expired,
 * domain named by it), its fingerprint and validity recorded at once, then installed by the agent (the key a
 * task secret, never stored); self-signed → made on the host by the agent. Names are unique per node (409
 * certificate_name_taken).
 */
export async function createCertificate(trx: Db, enqueue: Enqueue, c: NewCertificate): Promise<CertificateRecord & { taskId: number }> {
  checkFields(c);
  const imported =
    c.type === 'imported' ? checkImportedCertificate({ certificatePem: c.certificatePem!, privateKeyPem: c.privateKeyPem!, domain: c.domain }) : null;
  const nodeId = await targetNode(trx, c.nodeId);
  const taken = await trx.selectFrom('certificates').select('id').where('node_id', '=', nodeId).where('name', '=', c.name).executeTakeFirst();
  if (taken) throw conflict('certificate_name_taken', `name: node ${nodeId} already has certificate ${taken.id} named ${c.name}`);
  const row = await trx
    .insertInto('certificates')
    .values({
      node_id: nodeId,
      name: c.name,
      domain: imported?.domain ?? c.domain!.toLowerCase(),
      type: c.type,
      staging: c.staging ?? false,
      issuance_status: 'queued',
      issuance_operation: 'initial',
      ...(imported ? { fingerprint: imported.fingerprint, not_before: imported.notBefore, not_after: imported.notAfter } : {}),
      updated_at: sql<Date>`now()`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const undo: CertificateUndo = { created: true };
  const task = await enqueue({ ...firstTask(row, c), undo });
  return { ...toCertificateRecord(row), taskId: task.id };
}

function firstTask(row: CertificateRow, c: NewCertificate): TaskPlan {
  if (row.type === 'imported') return installTask(row, c.certificatePem!, c.privateKeyPem!);
  if (row.type === 'self-signed') return selfSignTask(row);
  return issuanceTask(row, 'initial');
}
