import type { Transaction } from 'kysely';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { checkCloudInit } from './cloud-init-rules.ts';
import { lockShutOffVm, writeVmConfig } from './guests.ts';
import type { VmUndo } from './outcomes.ts';
import type { CloudInitOptions } from './types.ts';

/** E17: the agent builds the NoCloud seed ISO (`makefs -t cd9660`) and attaches it; all empty detaches it. */
export async function setCloudInit(trx: Transaction<Database>, enqueue: Enqueue, rid: number, body: CloudInitOptions) {
  const cloudInit = checkCloudInit(body);
  const { vm, config } = await lockShutOffVm(trx, rid);
  const undo: VmUndo = { options: { cloudInit: config.options.cloudInit } };
  config.options.cloudInit = cloudInit;
  await writeVmConfig(trx, rid, config);
  const task = await enqueue({
    kind: 'vm.cloud-init',
    nodeId: vm.node_id,
    resource: resourceKey.vm(rid),
    payload: { rid, domain: config.domain, ...cloudInit },
    undo,
  });
  return { rid, ...cloudInit, taskId: task.id };
}
