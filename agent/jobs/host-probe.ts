import { runChecked } from '../executors/executor.ts';
import type { JobHandler } from './job.ts';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted: the agent is stopping'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(new Error('aborted: the agent is stopping'));
    };
    signal.addEventListener('abort', stop, { once: true });
  });

/** Longest hold a probe may ask for. */
const MAX_HOLD_MS = 10 * 60_000;

/**
 * `host.probe`: reads each sysctl with `sysctl -n <oid>` (an unknown oid fails the task with sysctl's own
 * message) and holds for `holdMs` in steps, reporting progress — a real round trip through queue, agent,
 * host and reports, with a duration to interrupt.
 */
export const hostProbe: JobHandler<'host.probe'> = async (ctx, payload) => {
  const values: Record<string, string> = {};
  const steps = payload.sysctls.length + 1;
  let done = 0;
  for (const oid of payload.sysctls) {
    values[oid] = (await runChecked(ctx.exec, ['sysctl', '-n', oid], { timeoutMs: 10_000 })).trim();
    await ctx.progress('reading', Math.round((++done / steps) * 50), `${oid}: ${values[oid]}`);
  }
  const hold = Math.max(0, Math.min(MAX_HOLD_MS, payload.holdMs ?? 0));
  const ticks = Math.max(1, Math.min(20, Math.ceil(hold / 250)));
  for (let i = 1; i <= ticks && hold > 0; i++) {
    await sleep(hold / ticks, ctx.signal);
    await ctx.progress('holding', 50 + Math.round((i / ticks) * 50));
  }
  return { values };
};
