import spec from '#spec/certificates/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { lastPage } from '#store/paging';
import { listCertificateRows } from '#domain/certificates/store';
import { certificateViews } from '#domain/certificates/view';
import type { Input } from './list.schema.ts';

export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  const { rows, total } = await listCertificateRows(db, query);
  return ok('certificates_listed', { data: await certificateViews(db, rows), last_page: lastPage(total, query.size), total });
});
