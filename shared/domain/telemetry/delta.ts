import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { mapStoreError } from '#store/tx';
import { streamHeads, type Stream } from './cursors.ts';
import { ARC_AVERAGES, ARC_SUMS, POOL_LAST, POOL_MAXIMA, POOL_RATES } from './columns.ts';
import { groupSeries, toArcRow, type ArcPointRow, type ArcRow, type PoolPointRow, type PoolSeries } from './rows.ts';

/** Above this many newer rows a client is told to start over rather than be sent them all. */
const DELTA_MAX_NEWER = 10_000;
/**
 * What a reset answers with: the stream's latest 15 minutes (90 samples per pool at 10 s) — enough to draw the
 * live charts again at once; polling extends them from there. Longer history is what the roll-ups are for.
 */
const RESET_WINDOW_SECONDS = 900;
/** Raw rows: agents sample every 10 s. */
const RESOLUTION_SECONDS = 10;

interface DeltaQuery {
  /** the node whose pools and ARC are read */
  nodeId: string;
  /** only this pool's points (ARC rows are the node's either way) */
  poolGuid?: string;
  poolAfter: number;
  arcAfter: number;
}

export interface Delta {
  pools: PoolSeries[];
  arc: ArcRow[];
  cursors: { pool: number; arc: number };
  resetRequired: boolean;
  resolutionSeconds: number;
  generatedAt: number;
}

const epochMs = sql<number>`(extract(epoch from time) * 1000)::bigint`.as('time');
// every column a stored row has (the merge rules' lists, ./columns.ts) but node_id and the sequence numbers
const POOL_COLUMNS = ['id', 'pool_guid', 'interval_seconds', 'sample_count', 'worst_health', ...POOL_LAST, ...POOL_RATES, ...POOL_MAXIMA];
const ARC_COLUMNS = ['id', 'sample_count', ...ARC_SUMS, ...ARC_AVERAGES, 'l2_device_count'];

/**
 * The in-scope rows of a stream up to its head: the node's, for the pool stream maybe one pool's. (Both tables
 * have id, node_id and time; the cast only lets one builder serve both.)
 */
function scoped(db: Kysely<Database>, stream: Stream, q: DeltaQuery, head: number) {
  let qb = db
    .selectFrom((stream === 'pool' ? 'pool_telemetry' : 'arc_telemetry') as 'pool_telemetry')
    .where('node_id', '=', q.nodeId)
    .where('id', '<=', head);
  if (stream === 'pool' && q.poolGuid) qb = qb.where('pool_guid', '=', q.poolGuid);
  return qb;
}

function selectRows(db: Kysely<Database>, stream: Stream, q: DeltaQuery, head: number) {
  // rows are read as PoolPointRow / ArcPointRow (./rows.ts); the column names are the tables' own
  const cols = (stream === 'pool' ? POOL_COLUMNS : ARC_COLUMNS) as 'id'[];
  return scoped(db, stream, q, head).select(cols).select(epochMs);
}

/** The row sequence number of a scope: within the node, or within the pool when one is named. */
const seqColumn = (stream: Stream, q: DeltaQuery) => (stream === 'pool' && q.poolGuid ? 'pool_seq' : 'node_seq') as 'node_seq';

/**
 * How many in-scope rows lie after the cursor. Every row carries its number within its node (and pool), so
 * this is the newest row's number minus that of the last row at or before the cursor — or, when rows up to the
 * cursor were pruned already, minus the oldest remaining row's number less one: three index lookups, whatever
 * the size of the table. Rows without numbers (seq 0, written by other means) are counted instead, on the
 * (node_id, id) / (pool_guid, id) index, no further than the first one too many.
 */
async function countNewer(db: Kysely<Database>, stream: Stream, q: DeltaQuery, after: number, head: number): Promise<number> {
  const seq = seqColumn(stream, q);
  const one = (dir: 'asc' | 'desc', upTo: number) => scoped(db, stream, q, upTo).select(seq).orderBy('id', dir).limit(1);
  // the three lookups in one round trip
  const probe = await db
    .selectNoFrom([one('desc', head).as('newest'), one('desc', after).as('at_cursor'), one('asc', head).as('oldest')])
    .executeTakeFirstOrThrow();
  const [newest, atCursor, oldest] = [probe.newest, probe.at_cursor, probe.oldest].map((v) => (v === null || v === undefined ? undefined : Number(v)));
  if (newest === undefined) return 0;
  if (newest > 0 && atCursor !== undefined && atCursor > 0) return newest - atCursor;
  if (newest > 0 && atCursor === undefined && oldest !== undefined && oldest > 0) return newest - (oldest - 1);
  const inner = scoped(db, stream, q, head)
    .select(sql.lit(1).as('one'))
    .where('id', '>', after)
    .orderBy('id')
    .limit(DELTA_MAX_NEWER + 1);
  const row = await db
    .selectFrom(inner.as('newer'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Whether more than DELTA_MAX_NEWER in-scope rows lie after the cursor (never, when the head is not that far ahead). */
async function tooManyNewer(db: Kysely<Database>, stream: Stream, q: DeltaQuery, after: number, head: number): Promise<boolean> {
  if (head - after <= DELTA_MAX_NEWER) return false;
  return (await countNewer(db, stream, q, after, head)) > DELTA_MAX_NEWER;
}

function newerRows(db: Kysely<Database>, stream: Stream, q: DeltaQuery, after: number, head: number) {
  return selectRows(db, stream, q, head).where('id', '>', after).orderBy('id').execute();
}

/**
 * The stream's latest window: in-scope rows within RESET_WINDOW_SECONDS of its newest one, through the
 * (node_id, time) index. A node's samples are stored in time order (ingest refuses older ones), so the newest
 * by id is the newest by time and time order is id order.
 */
function latestWindow(db: Kysely<Database>, stream: Stream, q: DeltaQuery, head: number) {
  const newest = scoped(db, stream, q, head).select('time').orderBy('id', 'desc').limit(1);
  return selectRows(db, stream, q, head)
    .where('time', '>=', sql<Date>`(${newest}) - make_interval(secs => ${RESET_WINDOW_SECONDS})`)
    .orderBy('time', 'desc')
    .limit(DELTA_MAX_NEWER)
    .execute()
    .then((rows) => rows.reverse());
}

/**
 * E14, GET /api/zfs/dashboard/history/delta. Exact semantics:
 *
 * - Each stream (pool points, ARC rows) has ids that grow in commit order (./cursors.ts); its head is the
 *   highest id committed. Rows are in scope when they belong to `nodeId` (pool stream: and to `poolGuid`).
 * - `resetRequired` is true when, for either stream, the cursor is ahead of the head (a cursor the store never
 *   handed out: another deployment, a restored database), or more than DELTA_MAX_NEWER in-scope rows have an
 *   id above the cursor.
 * - Without a reset each stream returns every in-scope row with cursor < id ≤ head, ascending by id.
 * - With a reset both streams return their latest window instead — the in-scope rows whose time lies within
 *   RESET_WINDOW_SECONDS of that stream's newest in-scope row, at most the newest DELTA_MAX_NEWER, ascending by
 *   id — and the client replaces what it holds with them.
 * - `cursors` are the heads in both cases: the next call asks for rows after them; rows out of scope up to the
 *   head are of no concern to this client.
 * - Consistency without a snapshot transaction: the heads are read first, and every row with an id up to a head
 *   was committed before that head became visible (ids are handed out under a lock held to commit), so each
 *   later query sees exactly the rows up to the head — and rows committed meanwhile lie above it, for next time.
 */
export async function readDelta(db: Kysely<Database>, q: DeltaQuery, now = () => Date.now()): Promise<Delta> {
  try {
    const heads = await streamHeads(db);
    const reset =
      q.poolAfter > heads.pool ||
      q.arcAfter > heads.arc ||
      (await Promise.all([tooManyNewer(db, 'pool', q, q.poolAfter, heads.pool), tooManyNewer(db, 'arc', q, q.arcAfter, heads.arc)])).some(Boolean);
    const read = (stream: Stream, after: number, head: number) => (reset ? latestWindow(db, stream, q, head) : newerRows(db, stream, q, after, head));
    const [pools, arc] = await Promise.all([read('pool', q.poolAfter, heads.pool), read('arc', q.arcAfter, heads.arc)]);
    return {
      pools: groupSeries(pools as unknown as PoolPointRow[]),
      arc: (arc as unknown as ArcPointRow[]).map(toArcRow),
      cursors: { pool: heads.pool, arc: heads.arc },
      resetRequired: reset,
      resolutionSeconds: RESOLUTION_SECONDS,
      generatedAt: now(),
    };
  } catch (err) {
    throw mapStoreError(err);
  }
}
