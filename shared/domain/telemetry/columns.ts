/**
 * How each telemetry column combines when samples are merged into a bucket — by the roll-ups that retention keeps
 * and by the history read that downsamples on the fly: rates and ARC sizes average (sample-weighted), ARC counter
 * deltas add up, capacity and health take the bucket's last value.
 */
export const POOL_RATES = ['read_iops', 'write_iops', 'read_bytes_per_second', 'write_bytes_per_second', 'read_latency_nanos', 'write_latency_nanos'];
/** each rate's bucket maximum (`max_read_iops`, …): the largest of the merged samples' maxima */
export const POOL_MAXIMA = POOL_RATES.map((c) => `max_${c}`);
export const POOL_LAST = ['pool_name', 'size', 'allocated', 'free', 'fragmentation', 'dedup_ratio', 'health'];
export const ARC_SUMS = [
  'interval_ms',
  'hits',
  'misses',
  'demand_hits',
  'demand_misses',
  'prefetch_hits',
  'prefetch_misses',
  'l2_hits',
  'l2_misses',
  'evictions',
  'l2_read_bytes',
  'l2_write_bytes',
  'evict_not_enough',
  'memory_throttle',
];
export const ARC_AVERAGES = [
  'size',
  'target_size',
  'min_size',
  'max_size',
  'data_size',
  'metadata_size',
  'header_size',
  'other_size',
  'compressed_size',
  'uncompressed_size',
  'l2_size',
  'l2_allocated',
];
