import type { Selectable, Transaction } from 'kysely';
import { conflict, notFound, unavailable } from '#shared/errors/domain-errors';
import { onlineSql } from '#store/presence';
import type { Database, Db, GuestsTable } from '#store/tables';
import { activeExclusiveTask } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import type { VmConfig, VmOptions } from './types.ts';

type VmRow = Selectable<GuestsTable> & { type: 'vm' };

/** A VM's config as stored, with defaults filled in for anything an older row lacks. */
export function vmConfigOf(row: Pick<VmRow, 'id' | 'config'>): VmConfig {
  const c = (row.config ?? {}) as Partial<VmConfig>;
  const d = defaultVmOptions();
  const o = (c.options ?? {}) as Partial<VmOptions>;
  return {
    domain: c.domain ?? String(row.id),
    options: {
      qemuGuestAgent: o.qemuGuestAgent ?? d.qemuGuestAgent,
      shutdownWaitTime: o.shutdownWaitTime ?? d.shutdownWaitTime,
      cloudInit: { ...d.cloudInit, ...o.cloudInit },
      vnc: { ...d.vnc, ...o.vnc },
    },
    macs: c.macs ?? [],
    datasets: c.datasets ?? [],
  };
}

/**
 * The VM row, locked for the rest of the transaction (the precondition checks that follow and the write
 * see one state; a racing request waits, then re-checks). 404 when no VM has this RID.
 */
export async function lockVm(trx: Transaction<Database>, rid: number): Promise<VmRow> {
  const row = await trx.selectFrom('guests').selectAll().where('id', '=', rid).where('type', '=', 'vm').forUpdate().executeTakeFirst();
  if (!row) throw notFound('vm_not_found', `vm ${rid} does not exist`);
  return row as VmRow;
}

/** 503 when the VM's node has not been heard from lately: its state cannot be trusted, its agent would not act. */
export async function requireNodeOnline(trx: Transaction<Database>, vm: VmRow): Promise<void> {
  // the database's clock, the one every writer shares
  const node = await trx.selectFrom('nodes').select(onlineSql().as('online')).where('id', '=', vm.node_id).executeTakeFirstOrThrow();
  if (!node.online) throw unavailable('node_offline', `vm ${vm.id} is on node ${vm.node_id}, which is offline; retry when its agent reports again`);
}

/** E5/E17/E19: the domain's definition may only change while it is shut off. */
function requireShutOff(vm: VmRow): void {
  if (vm.state === 'orphaned')
    throw conflict('vm_orphaned', `vm ${vm.id} is an orphaned registration (libvirt does not define it); purge it with DELETE /api/vm/${vm.id}/registration`);
  if (vm.state !== 'shut off') throw conflict('vm_not_shut_off', `vm ${vm.id} is ${vm.state}; shut it off first`);
}

export async function writeVmConfig(trx: Transaction<Database>, rid: number, config: VmConfig): Promise<void> {
  await trx
    .updateTable('guests')
    .set({ config: JSON.stringify(config), updated_at: new Date() })
    .where('id', '=', rid)
    .execute();
}

/**
 * 409 `vm_busy` while a power task (exclusive on the VM) holds it: its state is about to change, so neither a
 * second power action nor a change that needs it shut off (E5, E17, E19) may be queued behind it.
 */
export async function requireNoPowerTask(db: Db, rid: number): Promise<void> {
  const t = await activeExclusiveTask(db, resourceKey.vm(rid));
  if (t) throw conflict('vm_busy', `vm ${rid} is busy: task ${t.id} (${t.kind}) is ${t.status}`);
}

/** Locks the VM and checks what an option change of a shut-off VM needs, in this order: 404, 503, 409. */
export async function lockShutOffVm(trx: Transaction<Database>, rid: number): Promise<{ vm: VmRow; config: VmConfig }> {
  const vm = await lockVm(trx, rid);
  await requireNodeOnline(trx, vm);
  requireShutOff(vm);
  await requireNoPowerTask(trx, rid);
  return { vm, config: vmConfigOf(vm) };
}
