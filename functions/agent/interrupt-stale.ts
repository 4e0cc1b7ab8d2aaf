import spec from '#spec/agent/interrupt-stale';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { boundNode } from '#domain/nodes/agent-binding';
import { interruptStaleTasks, pendingCancels } from '#domain/task-transitions';
import type { Input, Output } from './interrupt-stale.schema.ts';

export const handler = endpoint<Input>(spec, async (_input, { db, principal }): Promise<Reply<Output>> => {
  const nodeId = boundNode(principal);
  const { interrupted, cancelling } = await inTransaction(db, async (trx) => ({
    interrupted: await interruptStaleTasks(trx, nodeId),
    cancelling: await pendingCancels(trx, nodeId),
  }));
  return ok('stale_tasks_interrupted', { nodeId, interrupted, cancelling });
});
