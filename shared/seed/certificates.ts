import { X509Certificate } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '#store/tables';
import type { CertificatesSeed } from './certificates.schema.ts';
import { SeedError } from './validate.ts';

type HostFiles = Record<string, { content: string }> | undefined;

/**
 * Loads the seed's `certificates` in the seed's transaction, after the nodes. A ready certificate takes its
 * fingerprint (SHA-256 of the DER, colon hex) and validity from the PEM on the node's simulated host; problems
 * are named by their seed path.
 */
export async function upsertCertificates(
  trx: Transaction<Database>,
  certs: CertificatesSeed | undefined,
  hostFiles: (nodeId: string) => HostFiles,
  source: string,
): Promise<number> {
  if (!certs?.length) return 0;
  const nodes = new Set((await trx.selectFrom('nodes').select('id').execute()).map((n) => n.id));
  const problems: string[] = [];
  const rows = certs.map((c, i) => {
    if (!nodes.has(c.nodeId)) problems.push(`certificates[${i}].nodeId: node ${c.nodeId} is neither in this file nor in the store`);
    const base = {
      node_id: c.nodeId,
      name: c.name,
      domain: c.domain.toLowerCase(),
      type: 'managed' as const,
      staging: c.staging ?? false,
      issuance_operation: 'initial' as const,
    };
    if (c.issuanceStatus === 'failed')
      return { ...base, issuance_status: 'failed' as const, issuance_error: c.issuanceError ?? '', fingerprint: '', not_before: null, not_after: null };
    const path = `/usr/local/etc/ssl/hostmgr/${c.name}.crt`;
    const pem = hostFiles(c.nodeId)?.[path]?.content;
    let x: X509Certificate | undefined;
    try {
      x = pem ? new X509Certificate(pem) : undefined;
    } catch (err) {
      problems.push(`certificates[${i}]: hosts["${c.nodeId}"].files["${path}"] is not a PEM certificate (${(err as Error).message})`);
    }
    if (!pem) problems.push(`certificates[${i}]: a ready certificate needs hosts["${c.nodeId}"].files["${path}"]`);
    return {
      ...base,
      issuance_status: 'ready' as const,
      issuance_error: '',
      fingerprint: x?.fingerprint256 ?? '',
      not_before: x ? new Date(x.validFrom) : null,
      not_after: x ? new Date(x.validTo) : null,
    };
  });
  if (problems.length) throw new SeedError(source, problems);
  for (const r of rows) {
    const { node_id, name, ...fields } = r;
    await trx
      .insertInto('certificates')
      .values(r)
      .onConflict((oc) =>
        oc.columns(['node_id', 'name']).doUpdateSet({ ...fields, issuance_retry_at: null, issuance_failures: 0, updated_at: sql<Date>`now()` }),
      )
      .execute();
  }
  return rows.length;
}
