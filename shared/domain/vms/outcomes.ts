import type { HostInventory } from '#domain/inventory';
import type { Db } from '#store/tables';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { cancelledBeforeStart, restorableUndo } from '#domain/task-undo';
import { applyVmInventory } from './projection.ts';
import { vmConfigOf } from './guests.ts';
import type { VmOptions } from './types.ts';

/**
 * What a VM request replaced: the options it set (E5, E6, E17, E19), or — for a purge (E10) — the registration
 * row, the MAC objects it deleted and the VM's MAC bindings (dates as ISO strings).
 */
export interface VmUndo {
  options?: Partial<VmOptions>;
  guest?: { id: number; type: 'jail' | 'vm'; node_id: string; name: string; state: string; config: unknown; created_at: string; updated_at: string };
  macObjects?: Array<{ id: number; name: string; mac: string; created_at: string }>;
  bindings?: number[];
}

/** A cancelled purge: the registration, its deleted MAC objects and its bindings come back as they were. */
async function restorePurged(trx: Db, undo: VmUndo): Promise<void> {
  const g = undo.guest;
  if (!g) return;
  for (const m of undo.macObjects ?? [])
    await trx
      .insertInto('vm_mac_objects')
      .values(m)
      .onConflict((oc) => oc.doNothing())
      .execute();
  await trx
    .insertInto('guests')
    .values({ ...g, config: JSON.stringify(g.config) })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const bindings = undo.bindings ?? [];
  if (bindings.length)
    await trx
      .insertInto('vm_mac_bindings')
      .values(bindings.map((id) => ({ guest_id: g.id, mac_object_id: id })))
      .onConflict((oc) => oc.doNothing())
      .execute();
}

/** The VM kinds whose outcome this is (vm.power has the power outcome). */
type VmTask = TaskOf<'vm.guest-agent'> | TaskOf<'vm.shutdown-wait-time'> | TaskOf<'vm.cloud-init'> | TaskOf<'vm.vnc'> | TaskOf<'vm.purge-registration'>;

/**
 * What the store learns from a VM task's outcome (registered in shared/domain/task-outcomes.ts).
 *
 * Cancelled: the request is undone — the options it set go back to what they were (unless a newer request of
 * the same kind replaced them since), a purged registration comes back.
 *
 * A task that failed on the host (the agent found the VM running after all, or still defined when asked to
 * purge it) changed nothing there, so the host's last report is still the truth: the node's VMs are
 * projected again from it. This brings back a registration whose purge the host refused and drops options
 * that were persisted but never applied (the agent reports only an inventory that changed, so without this
 * the store would keep them until the host changed for another reason).
 *
 * (Secrets in the payload are removed by shared/jobs/secrets.ts when any task ends.)
 */
export async function applyVmTaskOutcome(trx: Db, task: VmTask): Promise<void> {
  if (task.status === 'cancelled') {
    const undo = await restorableUndo<VmUndo>(trx, task);
    if (undo?.guest) await restorePurged(trx, undo);
    else if (undo?.options) {
      const rid = task.payload.rid;
      const row = await trx.selectFrom('guests').select(['id', 'config']).where('id', '=', rid).where('type', '=', 'vm').forUpdate().executeTakeFirst();
      if (row) {
        const config = vmConfigOf(row);
        config.options = { ...config.options, ...undo.options };
        await trx
          .updateTable('guests')
          .set({ config: JSON.stringify(config), updated_at: new Date() })
          .where('id', '=', rid)
          .execute();
      }
    }
    if (cancelledBeforeStart(task)) return;
  }
  if (task.status !== 'failed' && task.status !== 'cancelled') return;
  const node = await trx.selectFrom('nodes').select('inventory').where('id', '=', task.node_id).executeTakeFirst();
  const inventory = node?.inventory as Partial<HostInventory> | undefined;
  await applyVmInventory(trx, task.node_id, inventory?.vms);
}
