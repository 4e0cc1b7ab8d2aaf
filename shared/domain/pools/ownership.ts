import type { Db } from '#store/tables';
import { log } from '#shared/log/logger';
import { raiseNotification } from '#domain/notifications/raise';

const reportedGuids = (inventory: unknown): string[] => {
  const pools = (inventory as { pools?: Array<{ guid?: unknown }> } | null)?.pools;
  return Array.isArray(pools) ? pools.map((p) => String(p?.guid)) : [];
};

/**
 * Pool GUIDs are unique across the cluster and a pool belongs to the node that reports it. A node may not
 * take over a GUID another node holds while that node still reports it: an agent (of a pending node, or a
 * compromised one) could otherwise claim another host's pool and have E7 queue its work on the wrong host.
 * When the holder no longer reports it, the pool has moved (zpool export/import) and follows its new host.
 * Returns the GUIDs of `guids` this node may not take.
 */
export async function foreignPoolGuids(db: Db, nodeId: string, guids: string[]): Promise<string[]> {
  if (!guids.length) return [];
  const held = await db
    .selectFrom('pools')
    .innerJoin('nodes', 'nodes.id', 'pools.node_id')
    .select(['pools.guid', 'pools.node_id', 'nodes.inventory'])
    .where('pools.guid', 'in', guids)
    .where('pools.node_id', '!=', nodeId)
    .execute();
  return held.filter((h) => reportedGuids(h.inventory).includes(h.guid)).map((h) => h.guid);
}

/** Reports refused GUIDs: a log line and a node notification, so an operator sees the clash. */
export async function reportRefusedPools(db: Db, nodeId: string, refused: string[]): Promise<void> {
  if (!refused.length) return;
  log.warn('inventory pools refused: GUID held by another node', { nodeId, guids: refused });
  await raiseNotification(db, {
    kind: 'pool_guid_refused',
    title: `Node ${nodeId} reported pool GUIDs held by another node`,
    body: `ignored pool GUIDs ${refused.join(', ')}: each is held by another node that still reports it`,
    severity: 'warning',
    scope: 'node',
    nodeId,
  });
}
