import type { Transaction } from 'kysely';
import type { Database, Db } from '#store/tables';

export type Stream = 'pool' | 'arc';

/**
 * Hands out `n` consecutive row ids of a telemetry stream. The counter row stays locked until the calling
 * transaction commits, so ids become visible strictly in increasing order: a reader that has seen id N can
 * never later find a committed row below N (which a sequence would allow), and E14's cursors lose nothing.
 * The counter is also the stream's head: the highest id ever handed out by a committed transaction.
 */
export async function allocateIds(trx: Transaction<Database>, stream: Stream, n: number): Promise<number[]> {
  const row = await trx
    .updateTable('telemetry_cursors')
    .set((eb) => ({ last_id: eb('last_id', '+', n) }))
    .where('stream', '=', stream)
    .returning('last_id')
    .executeTakeFirstOrThrow();
  const last = Number(row.last_id);
  return Array.from({ length: n }, (_, i) => last - n + 1 + i);
}

/** The head of each stream as the caller's snapshot sees it. */
export async function streamHeads(db: Db): Promise<Record<Stream, number>> {
  const rows = await db.selectFrom('telemetry_cursors').select(['stream', 'last_id']).execute();
  const heads = { pool: 0, arc: 0 };
  for (const r of rows) heads[r.stream] = Number(r.last_id);
  return heads;
}
