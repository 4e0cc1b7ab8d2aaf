import { sql } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import type { Db, NodeRow } from '#store/tables';

/**
 * A sign of life from the node's agent (heartbeat, telemetry, any report): `last_seen_at` becomes now.
 * Its own module so the heartbeat and telemetry bundles do not carry the inventory projections.
 */
export async function touchNode(db: Db, nodeId: string): Promise<NodeRow> {
  const row = await db.updateTable('nodes').set({ last_seen_at: sql<Date>`now()` }).where('id', '=', nodeId).returningAll().executeTakeFirst();
  if (!row) throw notFound('node_not_registered', `node ${nodeId} has not registered; the agent registers at start (POST /api/agent/register)`);
  return row;
}
