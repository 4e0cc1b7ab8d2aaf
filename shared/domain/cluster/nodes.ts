import type { Kysely } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';

/** Node ids are the hosts' UUIDs; anything else simply is not found, but keep the input bounded. */
export const nodeIdSchema = { type: 'string', minLength: 1, maxLength: 64 } as const;

/** 404 `cluster_node_not_found` unless the node is known to the cluster (pending or member). */
export async function requireNode(db: Kysely<Database>, nodeId: string): Promise<void> {
  const row = await db.selectFrom('nodes').select('id').where('id', '=', nodeId).executeTakeFirst();
  if (!row) throw notFound('cluster_node_not_found', `cluster node ${nodeId} does not exist`);
}
