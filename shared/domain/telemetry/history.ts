import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { mapStoreError } from '#store/tx';
import { notFound } from '#shared/errors/domain-errors';
import { findPool } from '#domain/pools/devices';
import { targetNode } from '#domain/pools/target-node';
import { markWatched } from './watch.ts';
import { streamHeads } from './cursors.ts';
import { ARC_AVERAGES, ARC_SUMS, POOL_LAST, POOL_RATES } from './columns.ts';
import { severitySql } from './health.ts';
import { groupSeries, toArcRow, type ArcPointRow, type ArcRow, type PoolPointRow, type PoolSeries } from './rows.ts';

/** Raw samples are 10 s apart: a bucket is never narrower. */
const MIN_BUCKET_SECONDS = 10;

export interface HistoryQuery {
  /** window start and end, Unix ms (from inclusive, to exclusive) */
  from: number;
  to: number;
  /** at most this many buckets per series */
  points: number;
  poolGuid?: string;
  nodeId?: string;
}

export interface History {
  pools: PoolSeries[];
  arc: ArcRow[];
  /** the width of one bucket: the window divided into `points`, never below the 10 s sample interval */
  resolutionSeconds: number;
  from: number;
  to: number;
  /** E14's cursors as of this read: polling E14 with them continues the charts without a gap or a repeat */
  cursors: { pool: number; arc: number };
  generatedAt: number;
}

/** The bucket width for a window cut into at most `points` buckets. */
export const bucketSeconds = (from: number, to: number, points: number) => Math.max(MIN_BUCKET_SECONDS, Math.ceil((to - from) / points / 1000));

const TEXT_COLUMNS = new Set(['pool_guid', 'pool_name', 'health', 'worst_health']);

/** sample-weighted average, as the roll-ups compute it (./retention.ts) */
const weighted = (c: string) => sql`round(sum(${sql.ref(c)}::numeric * sample_count) / sum(sample_count))::bigint AS ${sql.ref(c)}`;

/**
 * GET /api/zfs/dashboard/history: the raw samples of a window averaged into buckets in the store, so a day of
 * 10 s samples (8 640 per pool) reaches the browser as `points` rows. Each bucket row has E14's record shape:
 * rates are sample-weighted averages, maxima the bucket's maxima, capacity and health its last values,
 * worstHealth the worst seen; ARC counter deltas add up over the bucket, so its ratios describe the bucket.
 * `time` is the bucket's start, `id` its newest row. Buckets lie on a grid from `from`, so a later call for
 * the same window returns the same buckets.
 */
export async function readHistory(db: Kysely<Database>, q: HistoryQuery, now = () => Date.now()): Promise<History> {
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
  // the console opens its charts with this read: the node is watched from now on (./watch.ts)
  const watched = markWatched(db, nodeId);
  const seconds = bucketSeconds(q.from, q.to, q.points);
  const from = new Date(q.from);
  const to = new Date(q.to);
  const bucket = sql`date_bin(make_interval(secs => ${sql.lit(seconds)}), time, ${from}::timestamptz)`;
  // the bucket is computed once per row in a subquery: GROUP BY and the select list then name the same column
  const epochMs = sql`(extract(epoch from bucket) * 1000)::bigint AS time`;
  try {
    const [heads] = await Promise.all([streamHeads(db), watched]);
    const poolFilter = q.poolGuid !== undefined ? sql`AND pool_guid = ${q.poolGuid}` : sql``;
    const [pools, arc] = await Promise.all([
      sql<PoolPointRow>`
        SELECT max(id) AS id, pool_guid, ${epochMs}, ${sql.lit(seconds)} AS interval_seconds, sum(sample_count)::int AS sample_count,
               ${sql.join(POOL_RATES.map(weighted))},
               ${sql.join(POOL_RATES.map((c) => sql`max(${sql.ref(`max_${c}`)}) AS ${sql.ref(`max_${c}`)}`))},
               ${sql.join(POOL_LAST.map((c) => sql`(array_agg(${sql.ref(c)} ORDER BY id DESC))[1] AS ${sql.ref(c)}`))},
               (array_agg(worst_health ORDER BY ${severitySql('worst_health')} DESC, id DESC))[1] AS worst_health
        FROM (SELECT *, ${bucket} AS bucket FROM pool_telemetry
              WHERE node_id = ${nodeId} AND time >= ${from} AND time < ${to} AND id <= ${heads.pool} ${poolFilter}) AS t
        GROUP BY pool_guid, bucket
        ORDER BY bucket, pool_guid`.execute(db),
      sql<ArcPointRow>`
        SELECT max(id) AS id, ${epochMs}, sum(sample_count)::int AS sample_count,
               ${sql.join(ARC_SUMS.map((c) => sql`sum(${sql.ref(c)})::bigint AS ${sql.ref(c)}`))},
               ${sql.join(ARC_AVERAGES.map(weighted))},
               max(l2_device_count) AS l2_device_count
        FROM (SELECT *, ${bucket} AS bucket FROM arc_telemetry
              WHERE node_id = ${nodeId} AND time >= ${from} AND time < ${to} AND id <= ${heads.arc}) AS t
        GROUP BY bucket
        ORDER BY bucket`.execute(db),
    ]);
    // bigint sums and averages come back as strings from pg: the record is numbers
    const numeric = <T extends object>(r: T): T =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, TEXT_COLUMNS.has(k) || typeof v !== 'string' ? v : Number(v)])) as T;
    return {
      pools: groupSeries(pools.rows.map(numeric)),
      arc: arc.rows.map(numeric).map(toArcRow),
      resolutionSeconds: seconds,
      from: q.from,
      to: q.to,
      cursors: { pool: heads.pool, arc: heads.arc },
      generatedAt: now(),
    };
  } catch (err) {
    throw mapStoreError(err);
  }
}
