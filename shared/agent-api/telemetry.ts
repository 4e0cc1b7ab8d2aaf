import type { FromSchema } from 'json-schema-to-ts';

/**
 * What an agent posts to POST /api/agent/telemetry every sampling interval (10 s by default): one point per
 * pool (`zpool list -Hp`, `zpool iostat -Hpl`) and the host's ARC lifetime counters and sizes
 * (`sysctl kstat.zfs.misc.arcstats`). Counters are posted as the kernel reports them (since boot); the
 * control plane turns them into per-interval deltas (shared/domain/telemetry/ingest.ts), so ratios never come from lifetime totals.
 */
const count = { type: 'integer', minimum: 0 } as const;
const rate = { type: 'number', minimum: 0 } as const;

const poolSampleSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'guid',
    'name',
    'health',
    'size',
    'allocated',
    'free',
    'fragmentation',
    'dedupRatio',
    'readIOPS',
    'writeIOPS',
    'readBytesPerSecond',
    'writeBytesPerSecond',
    'readLatencyNanos',
    'writeLatencyNanos',
  ],
  properties: {
    guid: { type: 'string', minLength: 1, maxLength: 20, pattern: '^[0-9]+$' },
    name: { type: 'string', minLength: 1, maxLength: 256 },
    health: { type: 'string', minLength: 1, maxLength: 32 },
    size: count,
    allocated: count,
    free: count,
    /** percent, 0–100 */
    fragmentation: { type: 'number', minimum: 0, maximum: 100 },
    dedupRatio: { type: 'number', minimum: 0 },
    readIOPS: rate,
    writeIOPS: rate,
    readBytesPerSecond: rate,
    writeBytesPerSecond: rate,
    /** average total wait of the interval, nanoseconds */
    readLatencyNanos: rate,
    writeLatencyNanos: rate,
  },
} as const;

export const arcCounterNames = [
  'hits',
  'misses',
  'demandHits',
  'demandMisses',
  'prefetchHits',
  'prefetchMisses',
  'l2Hits',
  'l2Misses',
  'evictions',
  'l2ReadBytes',
  'l2WriteBytes',
  'evictNotEnough',
  'memoryThrottle',
] as const;
type ArcCounterName = (typeof arcCounterNames)[number];

/** the ARC's sizes as the agent reads them; E14's ARC rows carry them under the same names */
export const arcSizeNames = [
  'size',
  'targetSize',
  'minSize',
  'maxSize',
  'dataSize',
  'metadataSize',
  'headerSize',
  'otherSize',
  'compressedSize',
  'uncompressedSize',
  'l2Size',
  'l2Allocated',
  'l2DeviceCount',
] as const;
type ArcSizeName = (typeof arcSizeNames)[number];

const record = <K extends readonly string[]>(keys: K) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: keys,
    properties: Object.fromEntries(keys.map((k) => [k, count])) as { [P in K[number]]: typeof count },
  }) as const;

const arcSampleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['counters', 'sizes'],
  properties: {
    /** lifetime counters since boot */
    counters: record(arcCounterNames),
    /** current sizes in bytes (l2DeviceCount: cache devices) */
    sizes: record(arcSizeNames),
  },
} as const;

export const telemetrySampleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['time', 'intervalSeconds', 'pools'],
  properties: {
    /** when the sample was taken, Unix ms */
    time: { type: 'integer', minimum: 0 },
    /** the sampling interval the rates were measured over */
    intervalSeconds: { type: 'integer', minimum: 1, maximum: 3600 },
    pools: { type: 'array', maxItems: 256, items: poolSampleSchema },
    /** absent on a host without ZFS loaded */
    arc: arcSampleSchema,
  },
} as const;

export type PoolSample = FromSchema<typeof poolSampleSchema>;
export type ArcSample = { counters: Record<ArcCounterName, number>; sizes: Record<ArcSizeName, number> };
export type TelemetrySample = Omit<FromSchema<typeof telemetrySampleSchema>, 'arc'> & { arc?: ArcSample };

/** The answer to a telemetry post: rows stored. */
export interface IngestResult {
  pools: number;
  arc: number;
  /** samples not newer than the node's last stored sample: a retried post, stored once */
  skipped: number;
}

/**
 * The answer to a telemetry post: the rows stored, and whether someone (an E14 client, the console's charts)
 * reads this node's telemetry now — then the agent posts every sample as it takes it, else in batches.
 */
export interface TelemetryStored extends IngestResult {
  watched: boolean;
}
