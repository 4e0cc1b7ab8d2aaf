import { sql, type Kysely } from 'kysely';
import { onlineSql, OFFLINE_AFTER_HEARTBEATS } from '#store/presence';
import type { Database } from '#store/tables';
import { inTransaction } from '#store/tx';
import { raiseNotification } from '../notifications/raise.ts';

/**
 * Raises `node_offline` once for a member node that stopped being heard from (three heartbeats), and not again
 * until it was back online: the raise and the mark (`offline_notified_at`) share a transaction; a node heard
 * from again has its mark cleared. A node never heard from (no agent yet) is not offline, only new.
 * Returns the ids of the nodes newly reported offline.
 */
export async function notifyOfflineNodes(db: Kysely<Database>): Promise<string[]> {
  await db.updateTable('nodes').set({ offline_notified_at: null }).where('offline_notified_at', 'is not', null).where(onlineSql()).execute();
  const silent = await db
    .selectFrom('nodes')
    .select(['id', 'name', 'last_seen_at'])
    .where('status', '=', 'member')
    .where('last_seen_at', 'is not', null)
    .where('offline_notified_at', 'is', null)
    .where(sql<boolean>`NOT ${onlineSql()}`)
    .execute();
  const raised: string[] = [];
  for (const n of silent) {
    const marked = await inTransaction(db, async (trx) => {
      const row = await trx
        .updateTable('nodes')
        .set({ offline_notified_at: sql<Date>`now()` })
        .where('id', '=', n.id)
        .where('offline_notified_at', 'is', null)
        .where(sql<boolean>`NOT ${onlineSql()}`)
        .returning('id')
        .executeTakeFirst();
      if (!row) return false; // another sweeper got here first, or the node came back
      await raiseNotification(trx, {
        kind: 'node_offline',
        title: `Node ${n.name} is offline`,
        body: `No heartbeat from node ${n.name} (${n.id}) for ${OFFLINE_AFTER_HEARTBEATS} heartbeat intervals; last heard from at ${n.last_seen_at?.toISOString()}.`,
        severity: 'error',
        scope: 'node',
        nodeId: n.id,
        subject: { type: 'node', id: n.id },
      });
      return true;
    });
    if (marked) raised.push(n.id);
  }
  return raised;
}
