import type { Transaction } from 'kysely';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/jobs/protocol';
import type { Database } from '#store/tables';
import { lockShutOffVm, writeVmConfig } from './guests.ts';
import type { VmUndo } from './outcomes.ts';

/**
 * E5: persists the option and the task in the caller's one transaction; the agent re-checks
 * the VM is shut off, patches the domain XML's guest agent channel and `virsh define`s it.
 */
export async function setGuestAgent(trx: Transaction<Database>, enqueue: Enqueue, rid: number, enabled: boolean) {
  const { vm, config } = await lockShutOffVm(trx, rid);
  const undo: VmUndo = { options: { qemuGuestAgent: config.options.qemuGuestAgent } };
  config.options.qemuGuestAgent = enabled;
  await writeVmConfig(trx, rid, config);
  const task = await enqueue({ kind: 'vm.guest-agent', nodeId: vm.node_id, resource: resourceKey.vm(rid), payload: { rid, domain: config.domain, enabled }, undo });
  return { rid, enabled, taskId: task.id };
}
