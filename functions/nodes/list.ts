import spec from '#spec/nodes/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { lastPage } from '#store/paging';
import { listNodeViews } from '#domain/nodes/view';
import type { Input } from './list.schema.ts';

export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  const { data, total } = await listNodeViews(db, query);
  return ok('nodes_listed', { data, last_page: lastPage(total, query.size), total });
});
