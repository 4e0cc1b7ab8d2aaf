import spec from '#spec/agent/task-start';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { boundNode } from '#domain/nodes/agent-binding';
import { startTask } from '#shared/jobs/lifecycle';
import { toTaskView } from '#shared/jobs/tasks';
import type { Input } from './task-start.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db, principal }) => {
  const nodeId = boundNode(principal);
  const d = await inTransaction(db, (trx) => startTask(trx, nodeId, path.id));
  return ok(d.run ? 'task_started' : 'task_not_startable', { run: d.run, reason: d.reason, attempt: d.task.attempts, task: toTaskView(d.task) });
});
