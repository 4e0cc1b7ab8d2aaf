import { CommandError, type Executor } from '../../executors/executor.ts';
import type { ArcSample } from '#shared/agent-api/telemetry';

/**
 * ARC statistics: `sysctl -q kstat.zfs.misc.arcstats` on FreeBSD (`kstat.zfs.misc.arcstats.hits: 1473806`),
 * or Linux's /proc/spl/kstat/zfs/arcstats table (`hits  4  1473806`), read into `{hits: 1473806, …}`.
 */
const PREFIX = 'kstat.zfs.misc.arcstats.';

export function parseArcstats(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    let m = /^kstat\.zfs\.misc\.arcstats\.([A-Za-z0-9_]+): (\d+)\s*$/.exec(line);
    if (!m) m = /^([a-z0-9_]+)\s+\d+\s+(\d+)\s*$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** Reads the ARC counters; null when ZFS is not loaded (no arcstats node). */
export async function readArcstats(exec: Executor): Promise<Record<string, number> | null> {
  const argv = ['sysctl', '-q', PREFIX.slice(0, -1)];
  const res = await exec.run(argv);
  const stats = parseArcstats(res.stdout);
  if (Object.keys(stats).length) return stats;
  // -q: an unknown node exits non-zero without a message; that is "no ZFS", anything else a failure
  if (res.code !== 0 && res.stderr.trim()) throw new CommandError(argv, res);
  return null;
}

/**
 * The telemetry ARC sample: lifetime counters (OpenZFS sums demand and prefetch hits over data and
 * metadata; evictions are `deleted`, buffers evicted from the cache) and current sizes.
 */
export function arcSample(stats: Record<string, number>, l2DeviceCount: number): ArcSample {
  const s = (k: string) => stats[k] ?? 0;
  return {
    counters: {
      hits: s('hits'),
      misses: s('misses'),
      demandHits: s('demand_data_hits') + s('demand_metadata_hits'),
      demandMisses: s('demand_data_misses') + s('demand_metadata_misses'),
      prefetchHits: s('prefetch_data_hits') + s('prefetch_metadata_hits'),
      prefetchMisses: s('prefetch_data_misses') + s('prefetch_metadata_misses'),
      l2Hits: s('l2_hits'),
      l2Misses: s('l2_misses'),
      evictions: s('deleted'),
      l2ReadBytes: s('l2_read_bytes'),
      l2WriteBytes: s('l2_write_bytes'),
      evictNotEnough: s('evict_not_enough'),
      memoryThrottle: s('memory_throttle_count'),
    },
    sizes: {
      size: s('size'),
      targetSize: s('c'),
      minSize: s('c_min'),
      maxSize: s('c_max'),
      dataSize: s('data_size'),
      metadataSize: s('metadata_size'),
      headerSize: s('hdr_size'),
      otherSize: s('other_size'),
      compressedSize: s('compressed_size'),
      uncompressedSize: s('uncompressed_size'),
      l2Size: s('l2_size'),
      l2Allocated: s('l2_asize'),
      l2DeviceCount,
    },
  };
}
