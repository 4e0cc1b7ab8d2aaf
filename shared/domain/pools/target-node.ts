import { notFound } from '#shared/errors/domain-errors';
import { requireNode } from '#domain/nodes/require-node';
import type { Db } from '#store/tables';

/**
 * The node a host-level request without a node in its path acts on (E11's tunables, E14's dashboard). The spec
 * describes these as operations of "the host"; in a cluster that is the node the caller names with `?nodeId=`
 * (404 cluster_node_not_found when unknown), else the cluster's primary node — the member admitted first
 * (the host the control plane was set up on; ties broken by id). No member at all → 404 as well.
 */
export async function targetNode(db: Db, nodeId?: string): Promise<string> {
  if (nodeId !== undefined) {
    await requireNode(db, nodeId);
    return nodeId;
  }
  const primary = await db.selectFrom('nodes').select('id').where('status', '=', 'member').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  if (!primary) throw notFound('cluster_node_not_found', 'the cluster has no member node yet; name one with ?nodeId=');
  return primary.id;
}
