import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import type { Db } from '#store/tables';

/**
 * The node's whole iSCSI configuration from the store (portal groups, targets, their LUNs), in a stable order:
 * what the agent renders as `/etc/ctl.conf`. Read inside the transaction that changed it.
 */
export async function nodeIscsiConfig(db: Db, nodeId: string): Promise<IscsiConfig> {
  const groups = await db.selectFrom('iscsi_portal_groups').selectAll().where('node_id', '=', nodeId).orderBy('name').execute();
  const targets = await db
    .selectFrom('iscsi_targets as t')
    .innerJoin('iscsi_portal_groups as g', 'g.id', 't.portal_group_id')
    .select(['t.id', 't.name', 't.alias', 't.auth_group', 'g.name as portal_group'])
    .where('t.node_id', '=', nodeId)
    .orderBy('t.name')
    .execute();
  const luns = await db.selectFrom('iscsi_luns').select(['target_id', 'lun_number', 'zvol']).where('node_id', '=', nodeId).orderBy('lun_number').execute();
  return {
    portalGroups: groups.map((g) => ({ name: g.name, discoveryAuthGroup: g.discovery_auth_group, listen: g.listen })),
    targets: targets.map((t) => ({
      name: t.name,
      alias: t.alias,
      authGroup: t.auth_group,
      portalGroup: t.portal_group,
      luns: luns.filter((l) => l.target_id === t.id).map((l) => ({ number: l.lun_number, zvol: l.zvol })),
    })),
  };
}
