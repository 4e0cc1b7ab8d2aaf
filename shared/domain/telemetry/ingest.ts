import type { Insertable, Kysely, Transaction } from 'kysely';
import type { ArcTelemetryTable, Database, PoolTelemetryTable } from '#store/tables';
import { inTransaction } from '#store/tx';
import { arcCounterNames, type ArcSample, type IngestResult, type TelemetrySample } from './sample.ts';
import { allocateIds } from './cursors.ts';
import { touchNode } from '#domain/nodes/touch';

type Trx = Transaction<Database>;

function poolRows(nodeId: string, s: TelemetrySample): Omit<Insertable<PoolTelemetryTable>, 'id'>[] {
  const time = new Date(s.time);
  return s.pools.map((p) => {
    const r = {
      read_iops: Math.round(p.readIOPS),
      write_iops: Math.round(p.writeIOPS),
      read_bytes_per_second: Math.round(p.readBytesPerSecond),
      write_bytes_per_second: Math.round(p.writeBytesPerSecond),
      read_latency_nanos: Math.round(p.readLatencyNanos),
      write_latency_nanos: Math.round(p.writeLatencyNanos),
    };
    return {
      node_id: nodeId,
      pool_guid: p.guid,
      pool_name: p.name,
      time,
      interval_seconds: s.intervalSeconds,
      sample_count: 1,
      size: p.size,
      allocated: p.allocated,
      free: p.free,
      fragmentation: p.fragmentation,
      dedup_ratio: p.dedupRatio,
      health: p.health,
      worst_health: p.health,
      ...r,
      // one sample: its maximum is itself (roll-ups take the max of these)
      max_read_iops: r.read_iops,
      max_write_iops: r.write_iops,
      max_read_bytes_per_second: r.read_bytes_per_second,
      max_write_bytes_per_second: r.write_bytes_per_second,
      max_read_latency_nanos: r.read_latency_nanos,
      max_write_latency_nanos: r.write_latency_nanos,
    };
  });
}

type Counters = Record<string, number>;

/** Rows per INSERT: ~30 columns each stays far below PostgreSQL's 65 535 bind parameters. */
const CHUNK = 1000;
const chunks = <T>(rows: T[]): T[][] => Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK));

/**
 * The ARC row of one interval: counter deltas since the previous sample, sizes as sampled. Returns null when
 * there is no usable base — the node's first sample, or counters that went backwards (the host rebooted and
 * its counters restarted); that sample then becomes the base of the next one.
 */
export function arcRow(
  nodeId: string,
  time: Date,
  arc: ArcSample,
  base: { counters: Counters; at: Date } | null,
): Omit<Insertable<ArcTelemetryTable>, 'id'> | null {
  if (!base) return null;
  const intervalMs = time.getTime() - base.at.getTime();
  if (intervalMs <= 0) return null;
  const d = {} as Record<(typeof arcCounterNames)[number], number>;
  for (const k of arcCounterNames) {
    const delta = arc.counters[k] - (base.counters[k] ?? 0);
    if (delta < 0) return null;
    d[k] = delta;
  }
  const s = arc.sizes;
  return {
    node_id: nodeId,
    time,
    interval_ms: intervalMs,
    sample_count: 1,
    size: s.size,
    target_size: s.targetSize,
    min_size: s.minSize,
    max_size: s.maxSize,
    data_size: s.dataSize,
    metadata_size: s.metadataSize,
    header_size: s.headerSize,
    other_size: s.otherSize,
    compressed_size: s.compressedSize,
    uncompressed_size: s.uncompressedSize,
    l2_size: s.l2Size,
    l2_allocated: s.l2Allocated,
    l2_device_count: s.l2DeviceCount,
    hits: d.hits,
    misses: d.misses,
    demand_hits: d.demandHits,
    demand_misses: d.demandMisses,
    prefetch_hits: d.prefetchHits,
    prefetch_misses: d.prefetchMisses,
    l2_hits: d.l2Hits,
    l2_misses: d.l2Misses,
    evictions: d.evictions,
    l2_read_bytes: d.l2ReadBytes,
    l2_write_bytes: d.l2WriteBytes,
    evict_not_enough: d.evictNotEnough,
    memory_throttle: d.memoryThrottle,
  };
}

/** Stores the samples in one transaction (ids allocated in commit order, see ./cursors.ts). */
async function storeSamples(trx: Trx, nodeId: string, samples: TelemetrySample[]): Promise<IngestResult> {
  await trx
    .insertInto('telemetry_nodes')
    .values({ node_id: nodeId })
    .onConflict((oc) => oc.column('node_id').doNothing())
    .execute();
  const state = await trx.selectFrom('telemetry_nodes').selectAll().where('node_id', '=', nodeId).forUpdate().executeTakeFirstOrThrow();
  const fresh = [...samples]
    .sort((a, b) => a.time - b.time)
    .filter((s, i, all) => (i === 0 || s.time > all[i - 1].time) && (!state.last_sample_at || s.time > state.last_sample_at.getTime()));

  const pools = fresh.flatMap((s) => poolRows(nodeId, s));
  let base = state.arc_counters && state.arc_counters_at ? { counters: state.arc_counters, at: state.arc_counters_at } : null;
  const arcs: NonNullable<ReturnType<typeof arcRow>>[] = [];
  for (const s of fresh) {
    if (!s.arc) continue;
    const time = new Date(s.time);
    const row = arcRow(nodeId, time, s.arc, base);
    if (row) arcs.push(row);
    base = { counters: s.arc.counters, at: time };
  }

  // number the rows within their node and pool (see node_seq in migration 0021)
  let poolRowsSeen = Number(state.pool_rows);
  let arcRowsSeen = Number(state.arc_rows);
  const byGuid: Record<string, number> = { ...state.pool_rows_by_guid };
  if (pools.length) {
    const ids = await allocateIds(trx, 'pool', pools.length);
    const rows = pools.map((p, i) => ({ ...p, id: ids[i], node_seq: ++poolRowsSeen, pool_seq: (byGuid[p.pool_guid] = (byGuid[p.pool_guid] ?? 0) + 1) }));
    for (const chunk of chunks(rows)) await trx.insertInto('pool_telemetry').values(chunk).execute();
  }
  if (arcs.length) {
    const ids = await allocateIds(trx, 'arc', arcs.length);
    const rows = arcs.map((a, i) => ({ ...a, id: ids[i], node_seq: ++arcRowsSeen }));
    for (const chunk of chunks(rows)) await trx.insertInto('arc_telemetry').values(chunk).execute();
  }
  if (fresh.length) {
    const first = new Date(fresh[0].time);
    await trx
      .updateTable('telemetry_nodes')
      .set({
        last_sample_at: new Date(fresh[fresh.length - 1].time),
        // roll-ups resume from the oldest sample that arrived since they last ran (late samples included)
        rollup_from: state.rollup_from && state.rollup_from < first ? state.rollup_from : first,
        arc_counters: base ? JSON.stringify(base.counters) : null,
        arc_counters_at: base?.at ?? null,
        pool_rows: poolRowsSeen,
        arc_rows: arcRowsSeen,
        pool_rows_by_guid: JSON.stringify(byGuid),
      })
      .where('node_id', '=', nodeId)
      .execute();
  }
  return { pools: pools.length, arc: arcs.length, skipped: samples.length - fresh.length };
}

/**
 * POST /api/agent/telemetry: store a node's samples (404 node_not_registered before its agent registered).
 * READ COMMITTED: every ingest bumps the same two stream counters (./cursors.ts), which SERIALIZABLE turns into
 * a serialization failure for all but one of the concurrent ingests (a fleet's samples arrive together). Here
 * every row the ingest reads to write is locked first — the node row (touchNode's UPDATE), its telemetry_nodes
 * row (FOR UPDATE), the counters (UPDATE … RETURNING) — so a concurrent ingest waits for the lock and then works
 * on the committed value; the rest are inserts under fresh ids. The locks are taken in that order by every
 * ingest, so they cannot deadlock each other.
 */
export function ingestTelemetry(db: Kysely<Database>, nodeId: string, samples: TelemetrySample[]): Promise<IngestResult> {
  return inTransaction(
    db,
    async (trx) => {
      await touchNode(trx, nodeId); // a report is a sign of life too: it keeps the node online
      return storeSamples(trx, nodeId, samples);
    },
    4,
    'read committed',
  );
}
