import type { PoolInventory } from '#shared/agent-api/inventory';

/** A simulated host's two pools, as its inventory reports them (guids follow the host's number). */
export function syntheticPools(host: number): PoolInventory[] {
  return ['zroot', 'tank'].map((name, p) => ({
    name,
    guid: String(8_000_000_000_000_000 + host * 10 + p),
    health: 'ONLINE',
    size: 4e12,
    allocated: 1.5e12,
    free: 2.5e12,
    vdevs: [{ name: `ada${p}`, type: 'disk', state: 'ONLINE', guid: String(7_000_000_000_000_000 + host * 10 + p) }],
  }));
}

/** The host's k-th telemetry sample: its pools and ARC, counters growing with k. */
export const syntheticSample = (host: number, k: number, intervalSeconds: number, time = Date.now()) => ({
  time,
  intervalSeconds,
  pools: syntheticPools(host).map((p) => ({
    guid: p.guid,
    name: p.name,
    health: 'ONLINE',
    size: 4e12,
    allocated: 1.5e12 + k,
    free: 2.5e12 - k,
    fragmentation: 7,
    dedupRatio: 1,
    readIOPS: 10 + (k % 7),
    writeIOPS: 20,
    readBytesPerSecond: 4096,
    writeBytesPerSecond: 8192,
    readLatencyNanos: 150_000,
    writeLatencyNanos: 250_000,
  })),
  arc: {
    counters: {
      hits: 1000 * k,
      misses: 10 * k,
      demandHits: 900 * k,
      demandMisses: 9 * k,
      prefetchHits: 100 * k,
      prefetchMisses: k,
      l2Hits: 0,
      l2Misses: 0,
      evictions: k,
      l2ReadBytes: 0,
      l2WriteBytes: 0,
      evictNotEnough: 0,
      memoryThrottle: 0,
    },
    sizes: {
      size: 4e9,
      targetSize: 5e9,
      minSize: 1e9,
      maxSize: 8e9,
      dataSize: 3e9,
      metadataSize: 5e8,
      headerSize: 1e7,
      otherSize: 2e7,
      compressedSize: 2e9,
      uncompressedSize: 3e9,
      l2Size: 0,
      l2Allocated: 0,
      l2DeviceCount: 0,
    },
  },
});
