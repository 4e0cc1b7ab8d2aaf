import type { Transaction } from 'kysely';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { lockVm, vmConfigOf, writeVmConfig } from './guests.ts';
import type { VmUndo } from './outcomes.ts';

/**
 * E6: any VM state, an orphaned registration included (the wait time lives in the agent's registration
 * file, read by its graceful stop); no node check: the task waits in the node's queue until its agent is back.
 */
export async function setShutdownWaitTime(trx: Transaction<Database>, enqueue: Enqueue, rid: number, waitTime: number) {
  const vm = await lockVm(trx, rid);
  const config = vmConfigOf(vm);
  const undo: VmUndo = { options: { shutdownWaitTime: config.options.shutdownWaitTime } };
  config.options.shutdownWaitTime = waitTime;
  await writeVmConfig(trx, rid, config);
  const task = await enqueue({
    kind: 'vm.shutdown-wait-time',
    nodeId: vm.node_id,
    resource: resourceKey.vm(rid),
    payload: { rid, domain: config.domain, waitTime },
    undo,
  });
  return { rid, waitTime, taskId: task.id };
}
