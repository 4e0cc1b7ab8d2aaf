import { notFound } from '#shared/errors/domain-errors';
import type { Db, NodeRow } from '#store/tables';
import { onlineSql } from '#store/presence';

/** How a request named the node, for the 404's message: the field, the node's role, a hint. */
export interface NodeReference {
  /** `body.targetNodeId` → "body.targetNodeId: cluster node … does not exist" */
  field?: string;
  /** `which runs backup job 3` → "cluster node …, which runs backup job 3, does not exist" */
  role?: string;
  /** `its agent registers it` → "… does not exist (its agent registers it)" */
  hint?: string;
  /** lock the row for the rest of the transaction */
  forUpdate?: boolean;
}

/**
 * The node (pending or member) with whether it is online now, or 404 `cluster_node_not_found`: the one
 * "this node exists" rule of every request that names a node.
 */
export async function requireNode(db: Db, nodeId: string, ref: NodeReference = {}): Promise<NodeRow & { online: boolean }> {
  let q = db.selectFrom('nodes').selectAll().select(onlineSql('nodes').as('online')).where('id', '=', nodeId);
  if (ref.forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (row) return row;
  const said = `${ref.field ? `${ref.field}: ` : ''}cluster node ${nodeId}${ref.role ? `, ${ref.role},` : ''} does not exist${ref.hint ? ` (${ref.hint})` : ''}`;
  throw notFound('cluster_node_not_found', said);
}
