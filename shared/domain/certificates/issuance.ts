import { resourceKey } from '#shared/agent-api/task-kinds';
import type { TaskPlan } from '#shared/jobs/tasks';
import type { CertificateRow } from '#store/tables';
import { acmeDirectoryUrl } from './acme-directory.ts';

/**
 * The task that issues (or renews) a managed certificate on its node: exclusive on the certificate, so two
 * issuances of one certificate never run at once. It carries no secret: keys are made and kept on the host.
 */
export function issuanceTask(
  row: Pick<CertificateRow, 'id' | 'node_id' | 'name' | 'domain' | 'staging'>,
  operation: 'initial' | 'renewal',
): TaskPlan<'certificate.issue'> {
  return {
    kind: 'certificate.issue',
    nodeId: row.node_id,
    resource: resourceKey.certificate(row.id),
    payload: { certificateId: row.id, name: row.name, domain: row.domain, directoryUrl: acmeDirectoryUrl(row.staging), operation },
  };
}
