import type { JSONSchema } from 'json-schema-to-ts';
import { arcSizeNames } from '#shared/agent-api/telemetry';

const number = { type: 'number' } as const;
const members = (names: string[], text: string[] = []): JSONSchema => ({
  type: 'object',
  properties: Object.fromEntries([...names.map((n) => [n, number]), ...text.map((n) => [n, { type: 'string' }])]),
  required: [...names, ...text],
  additionalProperties: false,
});

/** E14's pool point (shared/domain/telemetry/rows.ts toPoint): every measure a number, health words as strings. */
const POOL_POINT = members(
  [
    'id',
    'time',
    'intervalSeconds',
    'sampleCount',
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
    'maxReadIOPS',
    'maxWriteIOPS',
    'maxReadBytesPerSecond',
    'maxWriteBytesPerSecond',
    'maxReadLatencyNanos',
    'maxWriteLatencyNanos',
  ],
  ['health', 'worstHealth'],
);

/** E14's ARC row (toArcRow): the sizes the agent sends, the ratios and rates derived from its counters. */
const ARC_ROW = members([
  'id',
  'time',
  ...arcSizeNames,
  'l2ReadBytesPerSecond',
  'l2WriteBytesPerSecond',
  'evictNotEnoughEvents',
  'memoryThrottleEvents',
  'hitRatio',
  'demandHitRatio',
  'prefetchHitRatio',
  'l2HitRatio',
  'evictionsPerSecond',
]);

/** GET /api/zfs/dashboard/history's `data`: E14's series and rows, bucketed, with the window and E14 cursors. */
export const telemetryHistorySchema: JSONSchema = {
  type: 'object',
  properties: {
    pools: {
      type: 'array',
      items: {
        type: 'object',
        properties: { guid: { type: 'string' }, name: { type: 'string' }, points: { type: 'array', items: POOL_POINT } },
        required: ['guid', 'name', 'points'],
        additionalProperties: false,
      },
    },
    arc: { type: 'array', items: ARC_ROW },
    resolutionSeconds: { type: 'integer', minimum: 10 },
    from: { type: 'integer' },
    to: { type: 'integer' },
    cursors: {
      type: 'object',
      properties: { pool: { type: 'integer', minimum: 0 }, arc: { type: 'integer', minimum: 0 } },
      required: ['pool', 'arc'],
      additionalProperties: false,
    },
    generatedAt: { type: 'integer' },
  },
  required: ['pools', 'arc', 'resolutionSeconds', 'from', 'to', 'cursors', 'generatedAt'],
  additionalProperties: false,
};
