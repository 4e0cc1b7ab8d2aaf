import type { Transaction } from 'kysely';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { requireCapability } from '#domain/nodes/capabilities';
import { lockShutOffVm, writeVmConfig } from './guests.ts';
import type { VmUndo } from './outcomes.ts';

/**
 * E5: persists the option and the task in the caller's one transaction; the agent re-checks
 * the VM is shut off, patches the domain XML's guest agent channel and `virsh define`s it. Enabling needs a
 * libvirt whose bhyve driver has virtio-console (the node's reported capabilities say so, or 409).
 */
export async function setGuestAgent(trx: Transaction<Database>, enqueue: Enqueue, rid: number, enabled: boolean) {
  const { vm, config } = await lockShutOffVm(trx, rid);
  if (enabled) await requireCapability(trx, vm.node_id, 'guest-agent-channel');
  const undo: VmUndo = { options: { qemuGuestAgent: config.options.qemuGuestAgent } };
  config.options.qemuGuestAgent = enabled;
  await writeVmConfig(trx, rid, config);
  const task = await enqueue({
    kind: 'vm.guest-agent',
    nodeId: vm.node_id,
    resource: resourceKey.vm(rid),
    payload: { rid, domain: config.domain, enabled },
    undo,
  });
  return { rid, enabled, taskId: task.id };
}
