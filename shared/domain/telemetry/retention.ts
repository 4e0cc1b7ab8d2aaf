import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '#store/tables';
import { inTransaction } from '#store/tx';
import { setting } from '#shared/config/read';
import { ARC_AVERAGES, ARC_SUMS, POOL_LAST, POOL_MAXIMA, POOL_RATES } from './columns.ts';
import { severitySql } from './health.ts';

/**
 * Retention and roll-ups of the dashboard telemetry, per node (each bound configurable):
 *   raw rows (10 s)        kept 24 hours   — what E14's delta reads          HM_TELEMETRY_RAW_HOURS
 *   1-minute roll-ups      kept 7 days     — from raw rows                   HM_TELEMETRY_MINUTE_DAYS
 *   5-minute roll-ups      kept 90 days    — from 1-minute roll-ups          HM_TELEMETRY_FIVE_MINUTE_DAYS
 * Roll-ups keep every measure: sample counts add up, rates are sample-weighted averages, maxima are maxima,
 * capacity and health are the bucket's last values, worstHealth the worst seen, ARC counter deltas add up.
 * They run at most once a minute per node, after an ingest (functions/agent/telemetry.ts), and resume
 * from the oldest sample that arrived since the previous run, so late samples are rolled up too.
 */
/** The retention bounds, from the environment. */
export function telemetryRetention(env: NodeJS.ProcessEnv = process.env) {
  return {
    rawHours: setting('HM_TELEMETRY_RAW_HOURS', env),
    minuteDays: setting('HM_TELEMETRY_MINUTE_DAYS', env),
    fiveMinuteDays: setting('HM_TELEMETRY_FIVE_MINUTE_DAYS', env),
  };
}
const MAINTENANCE_EVERY_MS = 60_000;

type Trx = Transaction<Database>;

const bucket = (seconds: number) => sql`date_bin(make_interval(secs => ${sql.lit(seconds)}), time, timestamptz '1970-01-01 00:00:00+00')`;
const list = (cols: string[]) => sql.join(cols.map((c) => sql.ref(c)));
const updateAll = (cols: string[]) => sql.join(cols.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));

/** Source rows: raw, or roll-ups of a finer resolution. */
function source(kind: 'pool' | 'arc', from: number | 'raw') {
  const table = kind === 'pool' ? 'pool_telemetry' : 'arc_telemetry';
  return from === 'raw' ? { table: sql.table(table), extra: sql`` } : { table: sql.table(`${table}_rollups`), extra: sql`AND resolution_seconds = ${from}` };
}

async function rollupPools(trx: Trx, nodeId: string, from: number | 'raw', to: number, start: Date, end: Date) {
  const src = source('pool', from);
  const rates = POOL_RATES.map((c) => sql`round(sum(${sql.ref(c)}::numeric * sample_count) / sum(sample_count))::bigint`);
  const maxima = POOL_MAXIMA.map((c) => sql`max(${sql.ref(c)})`);
  const last = POOL_LAST.map((c) => sql`(array_agg(${sql.ref(c)} ORDER BY time DESC))[1]`);
  const cols = [
    'resolution_seconds',
    'node_id',
    'pool_guid',
    'time',
    'interval_seconds',
    'sample_count',
    ...POOL_RATES,
    ...POOL_MAXIMA,
    ...POOL_LAST,
    'worst_health',
  ];
  await sql`
    INSERT INTO pool_telemetry_rollups (${list(cols)})
    SELECT ${to}, node_id, pool_guid, ${bucket(to)} AS bucket, ${to}, sum(sample_count),
           ${sql.join(rates)}, ${sql.join(maxima)}, ${sql.join(last)},
           (array_agg(worst_health ORDER BY ${severitySql('worst_health')} DESC, time DESC))[1]
    FROM ${src.table}
    WHERE node_id = ${nodeId} AND time >= ${start} AND time < ${end} ${src.extra}
    GROUP BY node_id, pool_guid, bucket
    ON CONFLICT (resolution_seconds, pool_guid, time) DO UPDATE SET ${updateAll(cols.slice(4))}, node_id = excluded.node_id
  `.execute(trx);
}

async function rollupArc(trx: Trx, nodeId: string, from: number | 'raw', to: number, start: Date, end: Date) {
  const src = source('arc', from);
  const cols = ['resolution_seconds', 'node_id', 'time', 'sample_count', ...ARC_SUMS, ...ARC_AVERAGES, 'l2_device_count'];
  await sql`
    INSERT INTO arc_telemetry_rollups (${list(cols)})
    SELECT ${to}, node_id, ${bucket(to)} AS bucket, sum(sample_count),
           ${sql.join(ARC_SUMS.map((c) => sql`sum(${sql.ref(c)})`))},
           ${sql.join(ARC_AVERAGES.map((c) => sql`round(sum(${sql.ref(c)}::numeric * sample_count) / sum(sample_count))::bigint`))},
           max(l2_device_count)
    FROM ${src.table}
    WHERE node_id = ${nodeId} AND time >= ${start} AND time < ${end} ${src.extra}
    GROUP BY node_id, bucket
    ON CONFLICT (resolution_seconds, node_id, time) DO UPDATE SET ${updateAll(cols.slice(3))}
  `.execute(trx);
}

const floorTo = (d: Date, seconds: number) => new Date(Math.floor(d.getTime() / (seconds * 1000)) * seconds * 1000);
const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Rolls up and prunes one node's telemetry. Returns false when it ran less than a minute ago (unless forced). */
export async function maintainTelemetry(db: Kysely<Database>, nodeId: string, now = new Date(), force = false): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    const state = await trx.selectFrom('telemetry_nodes').selectAll().where('node_id', '=', nodeId).forUpdate().executeTakeFirst();
    if (!state) return false;
    if (!force && state.maintained_at && now.getTime() - state.maintained_at.getTime() < MAINTENANCE_EVERY_MS) return false;
    // complete buckets only: the current minute (and five minutes) may still receive samples
    const minuteEnd = floorTo(now, 60);
    const fiveEnd = floorTo(now, 300);
    let next = state.rollup_from;
    if (state.rollup_from) {
      // start at a five-minute boundary so the 5-minute buckets are rebuilt from complete 1-minute ones
      const start = floorTo(state.rollup_from, 300);
      if (start < minuteEnd) {
        await rollupPools(trx, nodeId, 'raw', 60, start, minuteEnd);
        await rollupArc(trx, nodeId, 'raw', 60, start, minuteEnd);
      }
      if (start < fiveEnd) {
        await rollupPools(trx, nodeId, 60, 300, start, fiveEnd);
        await rollupArc(trx, nodeId, 60, 300, start, fiveEnd);
      }
      // what is not in a complete five-minute bucket yet is rolled up (again) next time
      next = start < fiveEnd ? fiveEnd : state.rollup_from;
    }
    const keep = telemetryRetention();
    const cut = { raw: ago(now, keep.rawHours * HOUR), minute: ago(now, keep.minuteDays * DAY), five: ago(now, keep.fiveMinuteDays * DAY) };
    await trx.deleteFrom('pool_telemetry').where('node_id', '=', nodeId).where('time', '<', cut.raw).execute();
    await trx.deleteFrom('arc_telemetry').where('node_id', '=', nodeId).where('time', '<', cut.raw).execute();
    for (const [res, before] of [
      [60, cut.minute],
      [300, cut.five],
    ] as const) {
      await trx.deleteFrom('pool_telemetry_rollups').where('node_id', '=', nodeId).where('resolution_seconds', '=', res).where('time', '<', before).execute();
      await trx.deleteFrom('arc_telemetry_rollups').where('node_id', '=', nodeId).where('resolution_seconds', '=', res).where('time', '<', before).execute();
    }
    await trx.updateTable('telemetry_nodes').set({ maintained_at: now, rollup_from: next }).where('node_id', '=', nodeId).execute();
    return true;
  });
}
