import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';

export interface TelemetryLayout {
  nodes: number;
  poolsPerNode: number;
  /** 10-second samples per node */
  samples: number;
}

export const e14NodeId = (n: number) => `bench-e14-node-${String(n).padStart(2, '0')}`;
export const e14PoolGuid = (n: number, p: number) => String(9_000_000_000_000_000 + n * 100 + p);

/** Ids interleave as the ingest hands them out: sample by sample, node by node, pool by pool. */
export const poolRowsPerSample = (l: TelemetryLayout) => l.nodes * l.poolsPerNode;
export const totalRows = (l: TelemetryLayout) => l.samples * l.nodes * (l.poolsPerNode + 1);

/**
 * A cluster's raw telemetry as E14 stores it: every node sampled every 10 s for `samples` samples, one pool
 * row per pool and one ARC row (counter deltas) per sample, ids in sample order (as the ingest hands them
 * out) and the stream heads set to the last ids. The first node is the primary (admitted first). Set-based
 * INSERT … SELECT, then ANALYZE.
 */
export async function seedTelemetry(db: Kysely<Database>, l: TelemetryLayout): Promise<void> {
  const nodes = Array.from({ length: l.nodes }, (_, n) => ({
    id: e14NodeId(n),
    name: `e14-host-${n}`,
    ip: `10.1.0.${n + 10}`,
    status: 'member',
    inventory: '{}',
    created_at: new Date(Date.UTC(2024, 0, 1) + n * 60_000),
  }));
  await db.insertInto('nodes').values(nodes).execute();
  await db
    .insertInto('pools')
    .values(
      nodes.flatMap((node, n) =>
        Array.from({ length: l.poolsPerNode }, (_, p) => ({
          guid: e14PoolGuid(n, p),
          node_id: node.id,
          name: p === 0 ? 'zroot' : `tank${p}`,
          health: 'ONLINE',
          size: 4_000_000_000_000,
          allocated: 1_500_000_000_000,
          free: 2_500_000_000_000,
          vdevs: '[]',
        })),
      ),
    )
    .execute();
  const { nodes: N, poolsPerNode: P, samples: S } = l;
  await sql`
    INSERT INTO pool_telemetry (id, node_id, pool_guid, pool_name, time, interval_seconds, sample_count, size, allocated, free,
      fragmentation, dedup_ratio, health, worst_health, read_iops, write_iops, read_bytes_per_second, write_bytes_per_second,
      read_latency_nanos, write_latency_nanos, max_read_iops, max_write_iops, max_read_bytes_per_second,
      max_write_bytes_per_second, max_read_latency_nanos, max_write_latency_nanos, node_seq, pool_seq)
    SELECT (k * ${N}::bigint + n) * ${P} + p + 1,
           'bench-e14-node-' || lpad(n::text, 2, '0'),
           (9000000000000000::bigint + n * 100 + p)::text,
           CASE WHEN p = 0 THEN 'zroot' ELSE 'tank' || p END,
           now() - make_interval(secs => (${S} - k) * 10), 10, 1,
           4000000000000, 1500000000000 + k * 1000, 2500000000000 - k * 1000,
           0.12, 1.0, 'ONLINE', 'ONLINE',
           100 + (k * 7 + p) % 900, 50 + (k * 13 + n) % 400, 1048576 * (1 + k % 50), 524288 * (1 + k % 30),
           200000 + k % 100000, 400000 + k % 50000, 1500, 900, 104857600, 52428800, 9000000, 12000000,
           k * ${P}::bigint + p + 1, k + 1
    FROM generate_series(0, ${S - 1}) AS k, generate_series(0, ${N - 1}) AS n, generate_series(0, ${P - 1}) AS p
  `.execute(db);
  await sql`
    INSERT INTO arc_telemetry (id, node_id, time, interval_ms, sample_count, size, target_size, min_size, max_size, data_size,
      metadata_size, header_size, other_size, compressed_size, uncompressed_size, l2_size, l2_allocated, l2_device_count,
      hits, misses, demand_hits, demand_misses, prefetch_hits, prefetch_misses, l2_hits, l2_misses, evictions,
      l2_read_bytes, l2_write_bytes, evict_not_enough, memory_throttle, node_seq)
    SELECT k * ${N}::bigint + n + 1, 'bench-e14-node-' || lpad(n::text, 2, '0'),
           now() - make_interval(secs => (${S} - k) * 10), 10000, 1,
           8589934592, 8589934592, 1073741824, 17179869184, 6442450944, 1610612736, 104857600, 429496729,
           4294967296, 6442450944, 0, 0, 0,
           90000 + k % 10000, 5000 + k % 3000, 85000, 4000, 5000, 1000, 0, 0, 200 + k % 100, 0, 0, 0, 0,
           k + 1
    FROM generate_series(0, ${S - 1}) AS k, generate_series(0, ${N - 1}) AS n
  `.execute(db);
  await sql`UPDATE telemetry_cursors SET last_id = CASE stream WHEN 'pool' THEN ${S * N * P}::bigint ELSE ${S * N}::bigint END`.execute(db);
  await sql`ANALYZE`.execute(db);
}
