import type { Selectable } from 'kysely';
import type { ArcTelemetryTable, PoolTelemetryTable } from '#store/tables';

/** Rows as E14 reads them: `time` already in Unix ms (converted by the store, cheaper than parsing dates). */
export type PoolPointRow = Omit<Selectable<PoolTelemetryTable>, 'time' | 'node_id'> & { time: number };
export type ArcPointRow = Omit<Selectable<ArcTelemetryTable>, 'time' | 'node_id'> & { time: number };

/** E14's pool point. Raw and rolled-up rows have the same measures. */
function toPoint(r: PoolPointRow) {
  return {
    id: Number(r.id),
    time: Number(r.time),
    intervalSeconds: r.interval_seconds,
    sampleCount: r.sample_count,
    size: r.size,
    allocated: r.allocated,
    free: r.free,
    fragmentation: r.fragmentation,
    dedupRatio: r.dedup_ratio,
    health: r.health,
    worstHealth: r.worst_health,
    readIOPS: r.read_iops,
    writeIOPS: r.write_iops,
    readBytesPerSecond: r.read_bytes_per_second,
    writeBytesPerSecond: r.write_bytes_per_second,
    readLatencyNanos: r.read_latency_nanos,
    writeLatencyNanos: r.write_latency_nanos,
    maxReadIOPS: r.max_read_iops,
    maxWriteIOPS: r.max_write_iops,
    maxReadBytesPerSecond: r.max_read_bytes_per_second,
    maxWriteBytesPerSecond: r.max_write_bytes_per_second,
    maxReadLatencyNanos: r.max_read_latency_nanos,
    maxWriteLatencyNanos: r.max_write_latency_nanos,
  };
}
type PoolPoint = ReturnType<typeof toPoint>;

/** hits / (hits + misses) of one interval; 0 when the interval saw no access at all. */
export const ratio = (hits: number, misses: number) => (hits + misses > 0 ? hits / (hits + misses) : 0);

/**
 * E14's ARC row. The stored counters are already deltas over `interval_ms` (made at ingest from consecutive
 * samples), so every ratio and rate describes that interval only — never the host's lifetime.
 */
export function toArcRow(r: ArcPointRow) {
  const seconds = r.interval_ms / 1000;
  const perSecond = (n: number) => (seconds > 0 ? n / seconds : 0);
  return {
    id: Number(r.id),
    time: Number(r.time),
    size: r.size,
    targetSize: r.target_size,
    minSize: r.min_size,
    maxSize: r.max_size,
    dataSize: r.data_size,
    metadataSize: r.metadata_size,
    headerSize: r.header_size,
    otherSize: r.other_size,
    compressedSize: r.compressed_size,
    uncompressedSize: r.uncompressed_size,
    l2Size: r.l2_size,
    l2Allocated: r.l2_allocated,
    l2DeviceCount: r.l2_device_count,
    l2ReadBytesPerSecond: Math.round(perSecond(r.l2_read_bytes)),
    l2WriteBytesPerSecond: Math.round(perSecond(r.l2_write_bytes)),
    /** events within the interval */
    evictNotEnoughEvents: r.evict_not_enough,
    memoryThrottleEvents: r.memory_throttle,
    hitRatio: ratio(r.hits, r.misses),
    demandHitRatio: ratio(r.demand_hits, r.demand_misses),
    prefetchHitRatio: ratio(r.prefetch_hits, r.prefetch_misses),
    l2HitRatio: ratio(r.l2_hits, r.l2_misses),
    evictionsPerSecond: perSecond(r.evictions),
  };
}
export type ArcRow = ReturnType<typeof toArcRow>;

export interface PoolSeries {
  guid: string;
  name: string;
  points: PoolPoint[];
}

/** Groups rows (in id order) into one series per pool, named by its latest row, ordered by name. */
export function groupSeries(rows: PoolPointRow[]): PoolSeries[] {
  const byGuid = new Map<string, PoolSeries>();
  for (const r of rows) {
    let s = byGuid.get(r.pool_guid);
    if (!s) byGuid.set(r.pool_guid, (s = { guid: r.pool_guid, name: r.pool_name, points: [] }));
    s.name = r.pool_name;
    s.points.push(toPoint(r));
  }
  return [...byGuid.values()].sort((a, b) => a.name.localeCompare(b.name) || a.guid.localeCompare(b.guid));
}
