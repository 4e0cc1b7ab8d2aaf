import { sql, type Kysely } from 'kysely';
import { setting } from '#shared/config/read';
import type { Database, NodeRow } from '#store/tables';

/**
 * A read of a node's telemetry (E14, the console's charts) marks it watched for HM_TELEMETRY_WATCH_SECONDS:
 * the answer to the agent's next telemetry post says so, and the agent then posts every sample as it takes it
 * instead of a batch a minute. A poller renews the mark, but the row is written at most once per half of that
 * span, so a console polling every 10 s costs the store one small update a minute, not six.
 */
export async function markWatched(db: Kysely<Database>, nodeId: string, seconds = setting('HM_TELEMETRY_WATCH_SECONDS')): Promise<void> {
  await db
    .updateTable('nodes')
    .set({ telemetry_watched_until: sql<Date>`now() + make_interval(secs => ${seconds})` })
    .where('id', '=', nodeId)
    .where((eb) =>
      eb.or([eb('telemetry_watched_until', 'is', null), eb('telemetry_watched_until', '<', sql<Date>`now() + make_interval(secs => ${seconds / 2})`)]),
    )
    .execute();
}

/** Whether the node was watched when it was last heard from (both times are the store's clock). */
export const isWatched = (node: Pick<NodeRow, 'telemetry_watched_until' | 'last_seen_at'>): boolean =>
  node.telemetry_watched_until !== null && node.last_seen_at !== null && node.telemetry_watched_until.getTime() > node.last_seen_at.getTime();
