import type { Insertable, Kysely } from 'kysely';
import type { ArcTelemetryTable, Database, PoolTelemetryTable } from '#store/tables';
import { mapStoreError } from '#store/tx';
import { conflict, notFound } from '#shared/errors/domain-errors';
import { arcCounterNames, type ArcSample, type IngestResult, type TelemetrySample, type TelemetryStored } from './sample.ts';
import { isWatched } from './watch.ts';
import { commitSamples } from './commit-samples.ts';
import { touchNode } from '#domain/nodes/touch';

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

/** How often an ingest recomputes after a concurrent ingest of the same node stored first (an agent's retried post). */
const ATTEMPTS = 8;

/** The node's telemetry state, created empty on its first sample. */
async function nodeState(db: Kysely<Database>, nodeId: string) {
  const read = () => db.selectFrom('telemetry_nodes').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
  const state = await read();
  if (state) return state;
  await db
    .insertInto('telemetry_nodes')
    .values({ node_id: nodeId })
    .onConflict((oc) => oc.column('node_id').doNothing())
    .execute();
  const created = await read();
  if (!created) throw notFound('node_not_registered', `node ${nodeId} was removed while its telemetry was stored`);
  return created;
}

/**
 * One attempt: reads the node's state, computes its rows, and stores them in one statement (./commit-samples.ts)
 * that applies only if the state is still the one read. Returns null when a concurrent ingest of the node came first.
 */
async function storeSamples(db: Kysely<Database>, nodeId: string, samples: TelemetrySample[]): Promise<IngestResult | null> {
  const state = await nodeState(db, nodeId);
  const fresh = [...samples]
    .sort((a, b) => a.time - b.time)
    .filter((s, i, all) => (i === 0 || s.time > all[i - 1].time) && (!state.last_sample_at || s.time > state.last_sample_at.getTime()));
  const result = (pools: number, arc: number): IngestResult => ({ pools, arc, skipped: samples.length - fresh.length });
  if (!fresh.length) return result(0, 0);

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
  const poolsNumbered = pools.map((p) => ({ ...p, node_seq: ++poolRowsSeen, pool_seq: (byGuid[p.pool_guid] = (byGuid[p.pool_guid] ?? 0) + 1) }));
  const arcsNumbered = arcs.map((a) => ({ ...a, node_seq: ++arcRowsSeen }));
  const stored = await commitSamples(
    db,
    nodeId,
    { lastSampleAt: state.last_sample_at, poolRows: Number(state.pool_rows), arcRows: Number(state.arc_rows) },
    {
      lastSampleAt: new Date(fresh[fresh.length - 1].time),
      firstSampleAt: new Date(fresh[0].time),
      arcCounters: base?.counters ?? null,
      arcCountersAt: base?.at ?? null,
      poolRows: poolRowsSeen,
      arcRows: arcRowsSeen,
      poolRowsByGuid: byGuid,
    },
    poolsNumbered,
    arcsNumbered,
  );
  return stored ? result(pools.length, arcs.length) : null;
}

/**
 * POST /api/agent/telemetry: store a node's samples (404 node_not_registered before its agent registered).
 * No explicit transaction: the sign of life is its own statement (as a heartbeat's is: the agent was heard from
 * even if storing then fails), and the rows with the node's telemetry state are one statement that takes the
 * streams' shared id counters last and commits at once (./commit-samples.ts), so concurrent ingests of a fleet
 * queue on those counters only for the time PostgreSQL needs to finish a few inserts and commit — not for
 * client round trips — and a heartbeat never waits behind them. The answer says whether someone reads the
 * node's telemetry (./watch.ts): the agent then posts each sample as it takes it, else in batches.
 */
export async function ingestTelemetry(db: Kysely<Database>, nodeId: string, samples: TelemetrySample[]): Promise<TelemetryStored> {
  try {
    const node = await touchNode(db, nodeId); // a report is a sign of life too: it keeps the node online
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const result = await storeSamples(db, nodeId, samples);
      if (result) return { ...result, watched: isWatched(node) };
    }
  } catch (err) {
    throw mapStoreError(err);
  }
  throw conflict('cluster_leadership_changed', 'concurrent telemetry posts of this node kept conflicting; retry the request');
}
