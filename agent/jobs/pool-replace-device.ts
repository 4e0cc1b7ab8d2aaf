import { setting } from '#shared/config/read';
import { detachDevice, leafVdevs, poolStatus, replaceDevice, resilverProgress, type ZpoolStatus } from '../drivers/zfs/pools.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { JobHandler } from './job.ts';

/** How often `zpool status` is read while the resilver runs (HM_RESILVER_POLL_MS; resilvers take hours on real disks). */
const resilverPollMs = () => setting('HM_RESILVER_POLL_MS');

const named = (s: ZpoolStatus, device: string) => leafVdevs(s).filter((v) => v.name === device || v.name === `/dev/${device}`);

/**
 * E7 `pool.replace-device`: `zpool replace <pool> <old> <new>` (zpool's own message fails the task), then
 * `zpool status` is followed until the resilver has finished and no `replacing-N` vdev is left, its "% done"
 * reported as task progress. Ends successfully only when the new device is in the pool and ONLINE; a resilver
 * that finished with errors, or a new device that did not come online, fails the task with what zpool shows.
 * A replacement that is already under way (the same task delivered again after a restart) is followed, not
 * started twice. Cancelled while the resilver runs, the new device is detached again when zpool allows it
 * (the old device stays in the pool); zpool's refusal is reported with the cancellation.
 */
export const poolReplaceDevice: JobHandler<'pool.replace-device'> = async (ctx, p) => {
  try {
    return await replaceAndFollow(ctx, p);
  } catch (err) {
    if (!ctx.cancelled?.aborted) throw err;
    throw new Error(`${(err as Error).message}; ${await undoReplacement(ctx.exec, p)}`);
  }
};

/** The undo step of a cancelled replacement: detach the new device if it is still (being) attached. */
export async function undoReplacement(exec: Parameters<JobHandler>[0]['exec'], p: { pool: string; new: string }): Promise<string> {
  try {
    const status = await poolStatus(exec, p.pool);
    if (!named(status, p.new).length) return `undone: ${p.new} is not in pool ${p.pool}`;
    if (!resilverProgress(status).replacing) return `not undone: the replacement of ${p.new} had already completed`;
    await detachDevice(exec, p.pool, p.new);
    return `undone: ${p.new} detached from ${p.pool}`;
  } catch (e) {
    return `not undone: ${(e as Error).message}`;
  }
}

const replaceAndFollow: JobHandler<'pool.replace-device'> = async (ctx, p) => {
  const before = await poolStatus(ctx.exec, p.pool);
  const underWay = named(before, p.new).length > 0 && resilverProgress(before).replacing;
  if (!underWay) {
    await ctx.progress('replacing', 0, `zpool replace ${p.pool} ${p.old} ${p.new}`);
    await replaceDevice(ctx.exec, p.pool, p.old, p.new);
  }
  let reported = -1;
  for (;;) {
    if (ctx.cancelled?.aborted) throw new Error(`stopped while ${p.pool} was resilvering onto ${p.new}`);
    if (ctx.signal.aborted) throw new Error(`the agent stopped while ${p.pool} was resilvering onto ${p.new}`);
    const status = await poolStatus(ctx.exec, p.pool);
    const progress = resilverProgress(status);
    if (!progress.replacing && !progress.running) {
      if (progress.errors) throw new Error(`resilver of ${p.pool} finished with ${progress.errors} errors: ${status.scan.text}`);
      const device = named(status, p.new)[0];
      if (!device) throw new Error(`${p.new} is not in pool ${p.pool} after the replacement (state ${status.state})`);
      if (device.state !== 'ONLINE') throw new Error(`${p.new} is ${device.state} in pool ${p.pool}${device.note ? ` (${device.note})` : ''}`);
      await ctx.progress('resilvered', 100, status.scan.text.split('\n')[0]);
      return { pool: p.pool, old: p.old, new: p.new, poolState: status.state, scan: status.scan.text };
    }
    // 99 at most until the replaced device is gone, and never lower than already reported: between the
    // resilver's end and the detach, or before a restarted scan prints its figures, zpool shows no percentage
    const percent = Math.max(reported, Math.min(99, Math.floor(progress.percent ?? 0)));
    if (percent !== reported) {
      const detaching = !progress.running && progress.replacing && progress.percent === 100;
      await ctx.progress('resilvering', percent, detaching ? `resilvered; zpool is detaching ${p.old}` : status.scan.text.split('\n').slice(-1)[0]);
      reported = percent;
    }
    // an abort ends the wait early; the loop's head then says why the job stops
    await delay(resilverPollMs(), undefined, { signal: ctx.signal }).catch(() => undefined);
  }
};
