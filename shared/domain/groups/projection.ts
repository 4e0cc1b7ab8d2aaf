import type { HostGroupInventory, HostUserInventory } from './types.ts';
import type { Db } from '#store/tables';

const CHUNK = 500;

/**
 * Brings the node's users and groups in step with its report (undefined = not reported: kept). Users are
 * replaced; groups are matched by name so that each keeps its id, and a group the host no longer lists is
 * dropped. A group being deleted (E2) stays marked deleted while the host still lists it. A group in `settling`
 * (a task on it is on its way, or ended after the report was collected) keeps its persisted members.
 */
export async function projectGroups(
  trx: Db,
  nodeId: string,
  users: HostUserInventory[] | undefined,
  groups: HostGroupInventory[] | undefined,
  settling: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (users) {
    await trx.deleteFrom('host_users').where('node_id', '=', nodeId).execute();
    for (let i = 0; i < users.length; i += CHUNK) {
      await trx
        .insertInto('host_users')
        .values(users.slice(i, i + CHUNK).map((u) => ({ node_id: nodeId, name: u.name, uid: u.uid, gid: u.gid })))
        .onConflict((oc) => oc.columns(['node_id', 'name']).doNothing())
        .execute();
    }
  }
  if (groups) {
    // what the report says of a settling group may predate its task: its persisted members stay
    const keep = (await trx.selectFrom('host_groups').select(['id', 'members']).where('node_id', '=', nodeId).execute()).filter((g) =>
      settling.has(`group:${g.id}`),
    );
    const names = groups.map((g) => g.name);
    let gone = trx.deleteFrom('host_groups').where('node_id', '=', nodeId);
    if (names.length) gone = gone.where('name', 'not in', names);
    await gone.execute();
    for (let i = 0; i < groups.length; i += CHUNK) {
      const rows = groups
        .slice(i, i + CHUNK)
        .map((g) => ({ node_id: nodeId, name: g.name, gid: g.gid, members: JSON.stringify(g.members), updated_at: new Date() }));
      await trx
        .insertInto('host_groups')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns(['node_id', 'name'])
            .doUpdateSet((eb) => ({ gid: eb.ref('excluded.gid'), members: eb.ref('excluded.members'), updated_at: eb.ref('excluded.updated_at') })),
        )
        .execute();
    }
    for (const g of keep)
      await trx
        .updateTable('host_groups')
        .set({ members: JSON.stringify(g.members) })
        .where('id', '=', g.id)
        .execute();
  }
}
