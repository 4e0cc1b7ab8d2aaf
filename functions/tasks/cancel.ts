import spec from '#spec/tasks/cancel';
import { endpoint } from '#http/endpoint';
import { accepted, ok } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { cancelTask } from '#domain/task-transitions';
import { toTaskView } from '#shared/jobs/tasks';
import type { Input } from './cancel.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db, principal }) => {
  const { task, state } = await inTransaction(db, (trx) => cancelTask(trx, path.id, principal.name));
  return state === 'cancelled' ? ok('task_cancelled', toTaskView(task)) : accepted('task_cancel_requested', toTaskView(task), task.id);
});
