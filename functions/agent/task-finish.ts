import spec from '#spec/agent/task-finish';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { boundNode } from '#domain/nodes/agent-binding';
import { finishTask } from '#domain/task-transitions';
import { toTaskView } from '#shared/jobs/tasks';
import type { Input, Output } from './task-finish.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, { db, principal }): Promise<Reply<Output>> => {
  const nodeId = boundNode(principal);
  const { task, changed } = await inTransaction(db, (trx) => finishTask(trx, nodeId, path.id, body));
  return ok(changed ? 'task_finished' : 'task_already_finished', toTaskView(task));
});
