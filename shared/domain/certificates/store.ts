import { notFound } from '#shared/errors/domain-errors';
import { offsetOf, type PageRequest } from '#store/paging';
import type { CertificateRow, Db } from '#store/tables';

/** The certificate row, or 404 certificate_not_found; `forUpdate` locks it for the rest of the transaction. */
export async function requireCertificate(db: Db, id: number, forUpdate = false): Promise<CertificateRow> {
  let q = db.selectFrom('certificates').selectAll().where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('certificate_not_found', `certificate ${id} does not exist`);
  return row;
}

/** A page of certificates, by id; only one node's with `nodeId`. */
export async function listCertificateRows(db: Db, f: PageRequest & { nodeId?: string }): Promise<{ rows: CertificateRow[]; total: number }> {
  let base = db.selectFrom('certificates');
  if (f.nodeId !== undefined) base = base.where('node_id', '=', f.nodeId);
  const rows = await base.selectAll().orderBy('id').limit(f.size).offset(offsetOf(f)).execute();
  const { n } = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}
