import { resourceKey } from '#shared/agent-api/task-kinds';
import type { TaskPlan } from '#shared/jobs/tasks';
import type { CertificateRow } from '#store/tables';

/** A self-signed certificate is made valid for this many days (it is not renewed: create a new one to replace it). */
const SELF_SIGNED_VALIDITY_DAYS = 365;

/**
 * The task that installs an imported certificate on its node, exclusive on the certificate. The private key
 * is a task secret (shared/jobs/secrets.ts): the agent gets it, the stored payload loses it when the task ends.
 */
export function installTask(
  row: Pick<CertificateRow, 'id' | 'node_id' | 'name' | 'fingerprint'>,
  certificatePem: string,
  privateKeyPem: string,
): TaskPlan<'certificate.install'> {
  return {
    kind: 'certificate.install',
    nodeId: row.node_id,
    resource: resourceKey.certificate(row.id),
    payload: { certificateId: row.id, name: row.name, certificatePem, privateKeyPem, fingerprint: row.fingerprint },
  };
}

/** The task that makes a self-signed certificate (and its key, which never leaves the host) on its node. */
export function selfSignTask(row: Pick<CertificateRow, 'id' | 'node_id' | 'name' | 'domain'>): TaskPlan<'certificate.self-sign'> {
  return {
    kind: 'certificate.self-sign',
    nodeId: row.node_id,
    resource: resourceKey.certificate(row.id),
    payload: { certificateId: row.id, name: row.name, domain: row.domain, validityDays: SELF_SIGNED_VALIDITY_DAYS },
  };
}
