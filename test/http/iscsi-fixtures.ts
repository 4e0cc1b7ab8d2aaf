/**
 * Arrangements of the iSCSI tests (not a test file): a portal group and a target of a node, written straight
 * into the store as the seed loader writes them (there is no endpoint creating targets).
 */
import { testDb, uid } from '../helpers/api.ts';

export async function createTarget(nodeId: string, opts: { listen?: string[]; luns?: Array<{ lunNumber: number; zvol: string }> } = {}) {
  const db = testDb();
  const group = await db
    .insertInto('iscsi_portal_groups')
    .values({ node_id: nodeId, name: `pg-${uid()}`, listen: JSON.stringify(opts.listen ?? ['0.0.0.0:3260']) })
    .returningAll()
    .executeTakeFirstOrThrow();
  const target = await db
    .insertInto('iscsi_targets')
    .values({ node_id: nodeId, name: `iqn.2012-06.org.example:${uid()}`, alias: 'test target', portal_group_id: group.id })
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const l of opts.luns ?? [])
    await db.insertInto('iscsi_luns').values({ target_id: target.id, node_id: nodeId, lun_number: l.lunNumber, zvol: l.zvol }).execute();
  return { group, target };
}
