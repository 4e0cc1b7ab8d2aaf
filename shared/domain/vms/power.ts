import type { Transaction } from 'kysely';
import { conflict, notFound } from '#shared/errors/domain-errors';
import type { Database, Db } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { PowerUnchanged, type VmPowerAction } from '#domain/power/power';
import { requireNoRestoreOf } from '#domain/power/restore-guard';
import { lockVm, requireNodeOnline, requireNoPowerTask, vmConfigOf } from './guests.ts';

/** A VM that runs a guest (a stop, poweroff or restart has something to act on). */
const isUp = (state: string) => state !== 'shut off' && state !== 'crashed' && state !== 'orphaned';

function refuseOrphaned(rid: number, state: string): void {
  if (state === 'orphaned')
    throw conflict('vm_orphaned', `vm ${rid} is an orphaned registration (libvirt does not define it); purge it with DELETE /api/vm/${rid}/registration`);
}

/**
 * The checks that need no lock, before the transaction: 404, 409 for an orphaned registration, and a VM the
 * store already holds in the wanted state answers at once (200, no task): a start of a running VM, a stop or
 * poweroff of a shut-off one. A restart always acts (a shut-off VM is started).
 */
export async function checkVmPower(db: Db, rid: number, action: VmPowerAction): Promise<void> {
  const vm = await db.selectFrom('guests').select(['state']).where('id', '=', rid).where('type', '=', 'vm').executeTakeFirst();
  if (!vm) throw notFound('vm_not_found', `vm ${rid} does not exist`);
  refuseOrphaned(rid, vm.state);
  const unchanged = (action === 'start' && vm.state === 'running') || ((action === 'stop' || action === 'poweroff') && !isUp(vm.state));
  if (unchanged)
    throw new PowerUnchanged(`vm_already_${vm.state === 'running' ? 'running' : 'shut_off'}`, {
      guestId: rid,
      action,
      outcome: 'unchanged',
      state: vm.state,
      taskId: null,
    });
}

/**
 * Plans a VM's power task in the caller's transaction, in this order: 404, 503 (node offline), 409 (orphaned;
 * another power task holds the VM). The graceful stop's wait is the VM's E6 setting as the store holds it now.
 */
export async function planVmPower(trx: Transaction<Database>, rid: number, action: VmPowerAction): Promise<TaskPlan> {
  const vm = await lockVm(trx, rid);
  await requireNodeOnline(trx, vm);
  refuseOrphaned(rid, vm.state);
  await requireNoPowerTask(trx, rid);
  await requireNoRestoreOf(trx, 'vm', rid);
  const config = vmConfigOf(vm);
  return {
    kind: 'vm.power',
    nodeId: vm.node_id,
    resource: resourceKey.vm(rid),
    payload: { rid, domain: config.domain, action, waitTime: config.options.shutdownWaitTime },
  };
}
