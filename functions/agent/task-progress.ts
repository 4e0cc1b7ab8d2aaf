import spec from '#spec/agent/task-progress';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { boundNode } from '#domain/nodes/agent-binding';
import { reportProgress } from '#shared/jobs/lifecycle';
import { toTaskView } from '#shared/jobs/tasks';
import type { Input, Output } from './task-progress.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, { db, principal }): Promise<Reply<Output>> => {
  const nodeId = boundNode(principal);
  const task = await inTransaction(db, (trx) => reportProgress(trx, nodeId, path.id, body));
  return ok('task_progress_recorded', toTaskView(task));
});
