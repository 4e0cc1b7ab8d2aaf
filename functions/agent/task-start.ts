import spec from '#spec/agent/task-start';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { boundNode } from '#domain/nodes/agent-binding';
import { startTask } from '#domain/task-transitions';
import type { Input, Output } from './task-start.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db, principal }): Promise<Reply<Output>> => {
  // node-bound token: a task of another node is 403 (nodeTask)
  const nodeId = boundNode(principal);
  const d = await inTransaction(db, (trx) => startTask(trx, nodeId, path.id));
  return ok(d.run ? 'task_started' : 'task_not_startable', d);
});
