import type { Kysely } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';
import { findPool } from '#domain/pools/devices';
import { targetNode } from '#domain/pools/target-node';
import { readDelta, type Delta } from './delta.ts';
import { markWatched } from './watch.ts';
import { mapStoreError } from '#store/tx';

interface DashboardQuery {
  poolAfter: number;
  arcAfter: number;
  poolGuid?: string;
  nodeId?: string;
}

/**
 * E14's scope: with `poolGuid`, that pool (it must be one a node reports — else 404 Pool Not Managed) and
 * its node's ARC; otherwise every pool and the ARC of the named or primary node (see targetNode). The read marks
 * the node watched (./watch.ts), so its agent sends each sample as it takes it while someone polls.
 */
export async function dashboardDelta(db: Kysely<Database>, q: DashboardQuery): Promise<Delta> {
  let nodeId: string;
  if (q.poolGuid !== undefined) {
    const pool = await findPool(db, q.poolGuid);
    if (!pool || (q.nodeId !== undefined && pool.nodeId !== q.nodeId)) {
      throw notFound('pool_not_managed', `pool ${q.poolGuid} is not managed${q.nodeId !== undefined ? ` on node ${q.nodeId}` : ''}`);
    }
    nodeId = pool.nodeId;
  } else {
    nodeId = await targetNode(db, q.nodeId);
  }
  const [delta] = await Promise.all([
    readDelta(db, { nodeId, poolGuid: q.poolGuid, poolAfter: q.poolAfter, arcAfter: q.arcAfter }),
    markWatched(db, nodeId).catch((err) => {
      throw mapStoreError(err);
    }),
  ]);
  return delta;
}
