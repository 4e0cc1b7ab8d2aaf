import type { Db } from '#store/tables';

export type Stream = 'pool' | 'arc';

/**
 * The streams' id counters (`telemetry_cursors`, one row per stream). An ingest takes its ids by updating the
 * counter in the same statement that inserts its rows, and that statement commits on its own
 * (./commit-samples.ts): the counter row stays locked until the rows are committed, so ids become visible
 * strictly in increasing order — a reader that has seen id N can never later find a committed row below N
 * (which a sequence would allow), and E14's cursors lose nothing. The counter is also the stream's head: the
 * highest id handed out by a committed statement.
 *
 * Returns the head of each stream as the caller's snapshot sees it.
 */
export async function streamHeads(db: Db): Promise<Record<Stream, number>> {
  const rows = await db.selectFrom('telemetry_cursors').select(['stream', 'last_id']).execute();
  const heads = { pool: 0, arc: 0 };
  for (const r of rows) heads[r.stream] = Number(r.last_id);
  return heads;
}
