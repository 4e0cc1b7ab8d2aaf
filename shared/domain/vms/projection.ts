import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';
import type { Db } from '#store/tables';
import { stableJson } from '#shared/agent-api/inventory-hash';
import { outranks } from '#domain/nodes/membership';
import { syncMacBindings } from './mac-objects.ts';
import type { VmConfig, VmInventory } from './types.ts';

const MAX_GUEST_ID = 9999;

/**
 * Projects a node's reported VMs into `guests` (type `vm`) and the MAC bindings; called in the transaction
 * that stores the inventory. Undefined = the section was not reported: nothing changes.
 *
 * The host is the truth, except where a request is still on its way to it: while a VM has an active task (or
 * one that ended after the report was collected: `settling`, shared/domain/nodes/settling.ts), its row keeps
 * the persisted options (only state and name follow the host), and a VM whose registration
 * is being purged is not re-created. A RID that is already another node's guest or a jail is not taken
 * over (guest ids are unique cluster-wide); it is returned as a warning — except that a member takes a VM a
 * pending node holds (a pending node's guests are provisional until E16 admits it) unless a task is on its way to it.
 */
export async function applyVmInventory(
  db: Db,
  nodeId: string,
  vms: VmInventory[] | undefined,
  settling: ReadonlySet<string> = new Set(),
  changed: ReadonlySet<string> = new Set(),
): Promise<string[]> {
  if (!vms) return [];
  const warnings: string[] = [];
  const existing = new Map((await db.selectFrom('guests').selectAll().where('node_id', '=', nodeId).where('type', '=', 'vm').execute()).map((r) => [r.id, r]));
  const active = await db
    .selectFrom('tasks')
    .select(['resource', 'kind'])
    .where('node_id', '=', nodeId)
    .where('resource', 'like', 'vm:%')
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
  // a VM with a task on its way, or one that ended after the report was collected: its persisted options stay
  const busy = new Set([...active.map((t) => t.resource), ...[...settling].filter((r) => r.startsWith('vm:'))].map((r) => Number(r.slice(3))));
  const purging = new Set(active.filter((t) => t.kind === 'vm.purge-registration').map((t) => Number(t.resource.slice(3))));
  // a VM a task changed after the report's collection began (`changed`: a power task put its new state): the
  // reported state may be the one before that change, so the persisted one stays
  const stateHeld = new Set([...changed].filter((r) => r.startsWith('vm:')).map((r) => Number(r.slice(3))));

  const reported = new Set<number>();
  for (const v of vms) {
    if (!Number.isInteger(v.rid) || v.rid < 1 || v.rid > MAX_GUEST_ID || purging.has(v.rid)) continue;
    reported.add(v.rid);
    const config: VmConfig = { domain: v.domain, options: v.options, macs: v.macs, datasets: v.datasets };
    const row = existing.get(v.rid);
    if (!row) {
      const holder = await db.selectFrom('guests').select(['type', 'node_id']).where('id', '=', v.rid).executeTakeFirst();
      const takeOver =
        holder?.type === 'vm' &&
        (await outranks(db, nodeId, holder.node_id)) &&
        !(await db.selectFrom('tasks').select('id').where('resource', '=', `vm:${v.rid}`).where('status', 'in', ACTIVE_STATUSES).executeTakeFirst());
      if (takeOver) await db.deleteFrom('guests').where('id', '=', v.rid).execute();
      else if (holder) {
        warnings.push(`vm ${v.rid} on node ${nodeId} ignored: guest id ${v.rid} is already ${holder.type} ${v.rid} on node ${holder.node_id}`);
        continue;
      }
      await db
        .insertInto('guests')
        .values({ id: v.rid, type: 'vm', node_id: nodeId, name: v.name, state: v.state, config: JSON.stringify(config) })
        .execute();
    } else if (busy.has(v.rid)) {
      const state = stateHeld.has(v.rid) ? row.state : v.state;
      if (row.state !== state || row.name !== v.name) {
        await db.updateTable('guests').set({ state, name: v.name, updated_at: new Date() }).where('id', '=', v.rid).execute();
      }
    } else if (row.state !== v.state || row.name !== v.name || stableJson(row.config) !== stableJson(config)) {
      await db
        .updateTable('guests')
        .set({ state: v.state, name: v.name, config: JSON.stringify(config), updated_at: new Date() })
        .where('id', '=', v.rid)
        .execute();
    }
    await syncMacBindings(db, v.rid, v.name, v.macs);
  }
  // gone from the host (no domain, no registration): the row goes too, unless a task is still on its way
  const gone = [...existing.keys()].filter((rid) => !reported.has(rid) && !busy.has(rid));
  if (gone.length) await db.deleteFrom('guests').where('node_id', '=', nodeId).where('type', '=', 'vm').where('id', 'in', gone).execute();
  return warnings;
}
