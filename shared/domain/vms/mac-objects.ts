import type { Db } from '#store/tables';

interface MacObjectUse {
  id: number;
  mac: string;
  /** other VMs bound to the same object */
  otherVmIds: number[];
}

/** The MAC objects a VM uses, each with the other VMs that use it too. */
export async function macObjectsOf(db: Db, rid: number): Promise<MacObjectUse[]> {
  const rows = await db
    .selectFrom('vm_mac_bindings as b')
    .innerJoin('vm_mac_objects as o', 'o.id', 'b.mac_object_id')
    .leftJoin('vm_mac_bindings as other', (j) => j.onRef('other.mac_object_id', '=', 'o.id').on('other.guest_id', '<>', rid))
    .select(['o.id', 'o.mac', 'other.guest_id as otherId'])
    .where('b.guest_id', '=', rid)
    .orderBy('o.id')
    .execute();
  const byId = new Map<number, MacObjectUse>();
  for (const r of rows) {
    const u = byId.get(r.id) ?? { id: r.id, mac: r.mac, otherVmIds: [] };
    if (r.otherId !== null) u.otherVmIds.push(r.otherId);
    byId.set(r.id, u);
  }
  return [...byId.values()];
}

/**
 * Makes the VM's bindings exactly the reported MACs, creating a MAC object for an address that has none
 * (named after the VM). Objects that lose their last binding stay: they are the operator's objects.
 */
export async function syncMacBindings(db: Db, rid: number, vmName: string, macs: string[]): Promise<void> {
  const wanted = [...new Set(macs.map((m) => m.toLowerCase()))].filter((m) => /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(m));
  if (wanted.length) {
    await db
      .insertInto('vm_mac_objects')
      .values(wanted.map((mac) => ({ name: `${vmName} ${mac}`, mac })))
      .onConflict((oc) => oc.column('mac').doNothing())
      .execute();
  }
  const ids = wanted.length ? (await db.selectFrom('vm_mac_objects').select('id').where('mac', 'in', wanted).execute()).map((r) => r.id) : [];
  let del = db.deleteFrom('vm_mac_bindings').where('guest_id', '=', rid);
  if (ids.length) del = del.where('mac_object_id', 'not in', ids);
  await del.execute();
  if (ids.length) {
    await db
      .insertInto('vm_mac_bindings')
      .values(ids.map((id) => ({ guest_id: rid, mac_object_id: id })))
      .onConflict((oc) => oc.columns(['guest_id', 'mac_object_id']).doNothing())
      .execute();
  }
}
