import spec from '#spec/tasks/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listTasks } from '#shared/jobs/tasks';
import { lastPage } from '#store/paging';
import type { Input } from './list.schema.ts';

export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  const { data, total } = await listTasks(db, query);
  return ok('tasks_listed', { data, last_page: lastPage(total, query.size), total });
});
