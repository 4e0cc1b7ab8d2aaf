import spec from '#spec/audit/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listAudit } from '#domain/audit/list';
import { lastPage } from '#store/paging';
import type { Input } from './list.schema.ts';

/** Who changed what, and who was refused: `{data, last_page, total}`. */
export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  const { data, total } = await listAudit(db, query);
  return ok('audit_listed', { data, last_page: lastPage(total, query.size), total });
});
