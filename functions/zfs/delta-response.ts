/**
 * E14's `data`, the spec's ZFS dashboard telemetry record (shared/domain/telemetry/delta.ts readDelta; rows.ts
 * toPoint and toArcRow): integers where the spec says integer, numbers for ratios and rates.
 */
import { describes } from '#http/responses/same';
import type { Delta } from '#domain/telemetry/delta';

const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const closed = <P extends Record<string, unknown>>(properties: P) =>
  ({ type: 'object', properties, required: Object.keys(properties) as (keyof P & string)[], additionalProperties: false }) as const;

const point = closed({
  id: int,
  /** Unix ms */
  time: int,
  intervalSeconds: int,
  sampleCount: int,
  size: int,
  allocated: int,
  free: int,
  fragmentation: num,
  dedupRatio: num,
  health: { type: 'string' },
  worstHealth: { type: 'string' },
  readIOPS: int,
  writeIOPS: int,
  readBytesPerSecond: int,
  writeBytesPerSecond: int,
  readLatencyNanos: int,
  writeLatencyNanos: int,
  maxReadIOPS: int,
  maxWriteIOPS: int,
  maxReadBytesPerSecond: int,
  maxWriteBytesPerSecond: int,
  maxReadLatencyNanos: int,
  maxWriteLatencyNanos: int,
} as const);

const arcRow = closed({
  id: int,
  time: int,
  size: int,
  targetSize: int,
  minSize: int,
  maxSize: int,
  dataSize: int,
  metadataSize: int,
  headerSize: int,
  otherSize: int,
  compressedSize: int,
  uncompressedSize: int,
  l2Size: int,
  l2Allocated: int,
  l2DeviceCount: int,
  l2ReadBytesPerSecond: int,
  l2WriteBytesPerSecond: int,
  evictNotEnoughEvents: int,
  memoryThrottleEvents: int,
  hitRatio: num,
  demandHitRatio: num,
  prefetchHitRatio: num,
  l2HitRatio: num,
  evictionsPerSecond: num,
} as const);

export const dashboardDeltaSchema = describes<Delta>()({
  title: 'DashboardDelta',
  ...closed({
    pools: { type: 'array', items: closed({ guid: { type: 'string' }, name: { type: 'string' }, points: { type: 'array', items: point } } as const) },
    arc: { type: 'array', items: arcRow },
    /** the heads to ask after next time */
    cursors: closed({ pool: int, arc: int } as const),
    resetRequired: { type: 'boolean' },
    resolutionSeconds: int,
    /** Unix ms */
    generatedAt: int,
  } as const),
});
