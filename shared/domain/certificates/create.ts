import { sql } from 'kysely';
import { conflict, invalid } from '#shared/errors/domain-errors';
import type { Enqueue } from '#shared/jobs/tasks';
import type { Db } from '#store/tables';
import { targetNode } from '#domain/pools/target-node';
import { toCertificateRecord, type CertificateRecord } from './record.ts';
import { issuanceTask } from './issuance.ts';

export interface NewCertificate {
  name: string;
  domain: string;
  type: 'managed' | 'imported' | 'self-signed';
  staging?: boolean;
  nodeId?: string;
}

/**
 * A new certificate on a node (default: the primary node). A managed one is recorded `queued` (initial
 * issuance) and its issuance task is queued in the same transaction. Names are unique per node (409
 * certificate_name_taken). Imported and self-signed certificates are not created through here yet (400).
 */
export async function createCertificate(trx: Db, enqueue: Enqueue, c: NewCertificate): Promise<CertificateRecord & { taskId: number }> {
  if (c.type !== 'managed') throw invalid('certificate_type_unsupported', `type: only managed (ACME) certificates can be created; ${c.type} is not supported yet`);
  const nodeId = await targetNode(trx, c.nodeId);
  const taken = await trx.selectFrom('certificates').select('id').where('node_id', '=', nodeId).where('name', '=', c.name).executeTakeFirst();
  if (taken) throw conflict('certificate_name_taken', `name: node ${nodeId} already has certificate ${taken.id} named ${c.name}`);
  const row = await trx
    .insertInto('certificates')
    .values({ node_id: nodeId, name: c.name, domain: c.domain.toLowerCase(), type: c.type, staging: c.staging ?? false, issuance_status: 'queued', issuance_operation: 'initial', updated_at: sql<Date>`now()` })
    .returningAll()
    .executeTakeFirstOrThrow();
  const task = await enqueue(issuanceTask(row, 'initial'));
  return { ...toCertificateRecord(row), taskId: task.id };
}
