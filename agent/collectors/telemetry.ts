import { runChecked, type Executor } from '../executors/executor.ts';
import type { PoolSample, TelemetrySample } from '#shared/agent-api/telemetry';
import { arcSample, readArcstats } from '../drivers/zfs/arcstats.ts';
import { listPools, parseZpoolStatus, poolIostat, poolSummary } from '../drivers/zfs/pools.ts';

interface TelemetryOptions {
  /** the agent's sampling interval, stored with the sample (default 10) */
  intervalSeconds?: number;
  /**
   * the window `zpool iostat` measures rates over (`-y <window> 1`; it blocks that long on a real host).
   * 0 = averages since boot. Default 1.
   */
  iostatWindowSeconds?: number;
  /** clock for the sample's time (tests) */
  now?: () => number;
  /** keeps the cache-device count between samples (the telemetry loop's); without it every sample counts */
  l2Devices?: L2DeviceCount;
}

/**
 * The number of cache (L2ARC) devices over all pools, from `zpool status`: counted again when the pool list
 * changed (names and GUIDs) or the count is `maxAgeMs` old (default 60 s), not at every sample — a sample
 * every 10 s would otherwise spend one of its four host commands on a number that changes only when an
 * operator adds or removes a cache device.
 */
export class L2DeviceCount {
  private key: string | null = null;
  private at = 0;
  private value = 0;

  constructor(private readonly maxAgeMs = 60_000) {}

  async get(exec: Executor, poolsKey: string, now: number): Promise<number> {
    if (this.key !== poolsKey || now - this.at >= this.maxAgeMs) {
      this.value = await l2DeviceCount(exec);
      this.key = poolsKey;
      this.at = now;
    }
    return this.value;
  }
}

/**
 * One E14 sample, taken every 10 s by default (shared/agent-api/telemetry.ts): per pool `zpool list -Hp`
 * (sizes, fragmentation, dedup, health) joined with `zpool iostat -Hpl` (IOPS, bytes/s, total wait), and the
 * ARC's lifetime counters and sizes. The control plane turns counters into per-interval deltas and ratios.
 */
export async function collectTelemetry(exec: Executor, opts: TelemetryOptions = {}): Promise<TelemetrySample> {
  const time = (opts.now ?? Date.now)();
  const list = await listPools(exec);
  const io = list.length ? await poolIostat(exec, { windowSeconds: opts.iostatWindowSeconds ?? 1 }) : [];
  const byName = new Map(io.map((r) => [r.name, r]));
  const pools: PoolSample[] = list.map((p) => {
    const s = byName.get(p.name);
    return {
      ...poolSummary(p),
      fragmentation: p.fragmentation ?? 0,
      dedupRatio: p.dedupRatio ?? 1,
      readIOPS: s?.readOps ?? 0,
      writeIOPS: s?.writeOps ?? 0,
      readBytesPerSecond: s?.readBytes ?? 0,
      writeBytesPerSecond: s?.writeBytes ?? 0,
      readLatencyNanos: s?.totalWaitRead ?? 0,
      writeLatencyNanos: s?.totalWaitWrite ?? 0,
    };
  });
  const sample: TelemetrySample = { time, intervalSeconds: opts.intervalSeconds ?? 10, pools };
  const stats = await readArcstats(exec);
  const poolsKey = list.map((p) => `${p.name}:${p.guid}`).join(',');
  const l2 = () => (opts.l2Devices ? opts.l2Devices.get(exec, poolsKey, time) : l2DeviceCount(exec));
  if (stats) sample.arc = arcSample(stats, stats.l2_size || stats.l2_asize ? await l2() : 0);
  return sample;
}

/** Cache (L2ARC) devices over all pools, from `zpool status`. */
async function l2DeviceCount(exec: Executor): Promise<number> {
  return parseZpoolStatus(await runChecked(exec, ['zpool', 'status'])).reduce((n, s) => n + (s.sections.cache?.length ?? 0), 0);
}
