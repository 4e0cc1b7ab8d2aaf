import type { Selectable } from 'kysely';
import type { PoolInventory, PoolVdev } from '#domain/inventory';
import type { PoolDevicesTable, Db } from '#store/tables';
import { foreignPoolGuids, reportRefusedPools } from './ownership.ts';

/** One row of `pool_devices` as the projection builds it (the table adds id, node and pool). */
type FlatDevice = Omit<Selectable<PoolDevicesTable>, 'id' | 'node_id' | 'pool_guid'>;

/** Every vdev of a pool's tree, depth first, with its parent's name (`''` at the top). */
function flattenVdevs(vdevs: PoolVdev[], parent = ''): FlatDevice[] {
  return vdevs.flatMap((v) => {
    const children = v.children ?? [];
    const self: FlatDevice = { name: v.name, guid: v.guid ?? null, type: v.type, state: v.state, parent, leaf: children.length === 0 };
    return [self, ...flattenVdevs(children, v.name)];
  });
}

/**
 * Replaces the node's pools, their devices and its free disks with what the agent reported. A section the
 * report does not carry (undefined) is left as it was: an agent whose pool collector failed must not make
 * the pools vanish; an empty list does mean "none" — for this node's pools only. A GUID another node holds
 * is refused (see ownership.ts) and reported; the refused GUIDs are returned.
 */
export async function projectPools(trx: Db, nodeId: string, pools: PoolInventory[] | undefined, disks: string[] | undefined): Promise<string[]> {
  const refused: string[] = [];
  if (pools) {
    refused.push(
      ...(await foreignPoolGuids(
        trx,
        nodeId,
        pools.map((p) => p.guid),
      )),
    );
    const guids = pools.map((p) => p.guid).filter((g) => !refused.includes(g));
    let gone = trx.deleteFrom('pools').where('node_id', '=', nodeId);
    if (guids.length) gone = gone.where('guid', 'not in', guids);
    await gone.execute();
    for (const p of pools.filter((x) => guids.includes(x.guid))) {
      const row = {
        node_id: nodeId,
        name: p.name,
        health: p.health,
        size: p.size,
        allocated: p.allocated,
        free: p.free,
        vdevs: JSON.stringify(p.vdevs),
        updated_at: new Date(),
      };
      await trx
        .insertInto('pools')
        .values({ guid: p.guid, ...row })
        .onConflict((oc) => oc.column('guid').doUpdateSet(row))
        .execute();
      await trx.deleteFrom('pool_devices').where('pool_guid', '=', p.guid).execute();
      const devices = flattenVdevs(p.vdevs);
      if (devices.length)
        await trx
          .insertInto('pool_devices')
          .values(devices.map((d) => ({ ...d, node_id: nodeId, pool_guid: p.guid })))
          .execute();
    }
  }
  if (disks) {
    await trx.deleteFrom('node_disks').where('node_id', '=', nodeId).execute();
    const unique = [...new Set(disks)];
    if (unique.length)
      await trx
        .insertInto('node_disks')
        .values(unique.map((name) => ({ node_id: nodeId, name })))
        .execute();
  }
  await reportRefusedPools(trx, nodeId, refused);
  return refused;
}
