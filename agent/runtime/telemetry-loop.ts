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
  /** seconds between posts while nobody reads the node's telemetry (default: every sample is posted) */
  batchSeconds?: number;
  /** zpool iostat's measuring window; 1 s on real hosts (it blocks that long) */
  iostatWindowSeconds?: number;
  /** takes one sample; collectTelemetry on `exec` unless given (tests) */
  collect?: () => Promise<TelemetrySample>;
  /** the control plane answered a post: the agent was heard from (it need not send a bare heartbeat) */
  heard?: () => void;
  /** the clock the batching is timed by (tests drive it) */
  now?: () => number;
}

/**
 * One sampling step of E14's telemetry: takes a sample (`zpool list -Hp`, `zpool iostat -Hpl`, arcstats) and
 * posts every sample not yet delivered, oldest first, to POST /api/agent/telemetry — at once while the control
 * plane's last answer said someone reads this node's telemetry (`watched`: an E14 client, the console), else
 * once every `batchSeconds` (each sample keeps its own time, so E14 still gets one row per sampling interval;
 * only fewer requests carry them). The first sample is posted at once, so a new agent learns whether it is
 * watched. While the control plane is unreachable samples accumulate (at most MAX_BUFFERED_SAMPLES, the oldest
 * dropped first) and every tick tries again; a post the control plane refuses (4xx) is logged and dropped,
 * since sending it again cannot succeed. Samples the control plane already holds are skipped by it, so a post
 * whose answer was lost does no harm.
 */
export function createTelemetryLoop(deps: TelemetryLoopDeps) {
  const pending: TelemetrySample[] = [];
  const l2Devices = new L2DeviceCount();
  const now = deps.now ?? Date.now;
  const collect =
    deps.collect ?? (() => collectTelemetry(deps.exec, { intervalSeconds: deps.intervalSeconds, iostatWindowSeconds: deps.iostatWindowSeconds, l2Devices }));
  const batchMs = (deps.batchSeconds ?? deps.intervalSeconds) * 1000;
  // ticks drift by the sampling time: half an interval of slack keeps a 60 s batch at six samples, not seven
  const slackMs = (deps.intervalSeconds * 1000) / 2;
  const state = { watched: false, lastPostAt: Number.NEGATIVE_INFINITY, posts: 0 };
  const due = () => state.watched || now() - state.lastPostAt >= batchMs - slackMs;
  return {
    pending,
    /** whether the last answer said someone reads this node's telemetry; how many posts were answered */
    state,
    async tick(): Promise<void> {
      try {
        pending.push(await collect());
      } catch (err) {
        deps.log('warn', 'telemetry sample failed', { cause: (err as Error).message });
      }
      if (pending.length > MAX_BUFFERED_SAMPLES) pending.splice(0, pending.length - MAX_BUFFERED_SAMPLES);
      if (!pending.length || !due()) return;
      const batch = pending.slice();
      try {
        const answer = await deps.api.telemetry(batch);
        pending.splice(0, batch.length);
        state.lastPostAt = now();
        state.posts++;
        // an older control plane does not say: then every sample goes at once, as before batching
        state.watched = answer?.watched ?? true;
        deps.heard?.();
      } catch (err) {
        if (err instanceof ApiError) {
          deps.log('error', 'telemetry refused by the control plane; samples dropped', { cause: err.message, samples: batch.length });
          pending.splice(0, batch.length);
          state.lastPostAt = now();
        } else {
          deps.log('warn', 'telemetry post failed; kept for the next one', { cause: (err as Error).message, pending: pending.length });
        }
      }
    },
  };
}

/**
 * The agent service (agent/runtime/services.ts) that samples every `telemetryIntervalS` from registration
 * until shutdown, and posts every sample or a batch every `telemetryBatchIntervalS` (see createTelemetryLoop);
 * a post answered stands for a heartbeat. One loop per agent: created on the first run, kept across runs for its pending samples.
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
        batchSeconds: ctx.config.telemetryBatchIntervalS,
        heard: ctx.heard,
      });
      await loop.tick();
    },
  };
}
