import { collectTelemetry, L2DeviceCount } from '../collectors/telemetry.ts';
import type { Executor } from '../executors/executor.ts';
import type { TelemetrySample } from '#shared/agent-api/telemetry';
import { ApiError } from './api.ts';
import type { AgentClient } from './client.ts';
import type { Logger } from './log.ts';
import type { AgentService } from './service.ts';

/** Samples kept while the control plane cannot be reached: one hour at the default interval. */
export const MAX_BUFFERED_SAMPLES = 360;

interface TelemetryLoopDeps {
  exec: Executor;
  api: Pick<AgentClient, 'telemetry'>;
  log: Logger;
  intervalSeconds: number;
  /** zpool iostat's measuring window; 1 s on real hosts (it blocks that long) */
  iostatWindowSeconds?: number;
  /** takes one sample; collectTelemetry on `exec` unless given (tests) */
  collect?: () => Promise<TelemetrySample>;
}

/**
 * One sampling step of E14's telemetry: takes a sample (`zpool list -Hp`, `zpool iostat -Hpl`, arcstats) and
 * posts it with every sample not yet delivered, oldest first, to POST /api/agent/telemetry. While the control
 * plane is unreachable samples accumulate (at most MAX_BUFFERED_SAMPLES, the oldest dropped first); a post
 * the control plane refuses (4xx) is logged and dropped, since sending it again cannot succeed. Samples the
 * control plane already holds are skipped by it, so a post whose answer was lost does no harm.
 */
export function createTelemetryLoop(deps: TelemetryLoopDeps) {
  const pending: TelemetrySample[] = [];
  const l2Devices = new L2DeviceCount();
  const collect =
    deps.collect ?? (() => collectTelemetry(deps.exec, { intervalSeconds: deps.intervalSeconds, iostatWindowSeconds: deps.iostatWindowSeconds, l2Devices }));
  return {
    pending,
    async tick(): Promise<void> {
      try {
        pending.push(await collect());
      } catch (err) {
        deps.log('warn', 'telemetry sample failed', { cause: (err as Error).message });
      }
      if (pending.length > MAX_BUFFERED_SAMPLES) pending.splice(0, pending.length - MAX_BUFFERED_SAMPLES);
      if (!pending.length) return;
      const batch = pending.slice();
      try {
        await deps.api.telemetry(batch);
        pending.splice(0, batch.length);
      } catch (err) {
        if (err instanceof ApiError) {
          deps.log('error', 'telemetry refused by the control plane; samples dropped', { cause: err.message, samples: batch.length });
          pending.splice(0, batch.length);
        } else {
          deps.log('warn', 'telemetry post failed; kept for the next one', { cause: (err as Error).message, pending: pending.length });
        }
      }
    },
  };
}

/**
 * The agent service (agent/runtime/services.ts) that samples every `telemetryIntervalS` from registration
 * until shutdown. One loop per agent: created on the first run, kept across runs for its pending samples.
 */
export function telemetryService(): AgentService {
  let loop: ReturnType<typeof createTelemetryLoop> | undefined;
  return {
    name: 'telemetry',
    everyMs: (cfg) => cfg.telemetryIntervalS * 1000,
    async run(ctx) {
      loop ??= createTelemetryLoop({
        exec: ctx.exec,
        api: ctx.api,
        log: ctx.log,
        intervalSeconds: ctx.config.telemetryIntervalS,
      });
      await loop.tick();
    },
  };
}
