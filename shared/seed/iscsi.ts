import type { Transaction } from 'kysely';
import type { Database } from '#store/tables';
import type { IscsiSeed } from './iscsi.schema.ts';
import { SeedError } from './validate.ts';

/**
 * Loads the seed's `iscsi` section in the seed's transaction: portal groups and targets upserted by (node, name);
 * a seeded LUN is added when its target has no LUN of that number (and its zvol backs no other LUN). Unknown
 * nodes and portal groups are named by their seed path.
 */
export async function upsertIscsi(trx: Transaction<Database>, seed: IscsiSeed | undefined, source: string): Promise<void> {
  if (!seed) return;
  const nodes = new Set((await trx.selectFrom('nodes').select('id').execute()).map((n) => n.id));
  const problems: string[] = [];
  const unknown = (section: string, items: Array<{ nodeId: string }> = []) =>
    items.forEach((item, i) => {
      if (!nodes.has(item.nodeId)) problems.push(`iscsi.${section}[${i}].nodeId: node ${item.nodeId} is neither in this file nor in the store`);
    });
  unknown('portalGroups', seed.portalGroups);
  unknown('targets', seed.targets);
  if (problems.length) throw new SeedError(source, problems);

  for (const g of seed.portalGroups ?? []) {
    const fields = { discovery_auth_group: g.discoveryAuthGroup ?? 'no-authentication', listen: JSON.stringify(g.listen) };
    await trx
      .insertInto('iscsi_portal_groups')
      .values({ node_id: g.nodeId, name: g.name, ...fields })
      .onConflict((oc) => oc.columns(['node_id', 'name']).doUpdateSet(fields))
      .execute();
  }
  for (const [i, t] of (seed.targets ?? []).entries()) {
    const group = await trx.selectFrom('iscsi_portal_groups').select('id').where('node_id', '=', t.nodeId).where('name', '=', t.portalGroup).executeTakeFirst();
    if (!group) throw new SeedError(source, [`iscsi.targets[${i}].portalGroup: node ${t.nodeId} has no portal group ${t.portalGroup}`]);
    const fields = { alias: t.alias ?? '', auth_group: t.authGroup ?? 'no-authentication', portal_group_id: group.id };
    const target = await trx
      .insertInto('iscsi_targets')
      .values({ node_id: t.nodeId, name: t.name, ...fields })
      .onConflict((oc) => oc.columns(['node_id', 'name']).doUpdateSet(fields))
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const l of t.luns ?? []) {
      await trx
        .insertInto('iscsi_luns')
        .values({ target_id: target.id, node_id: t.nodeId, lun_number: l.lunNumber, zvol: l.zvol })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }
}
