import type { JobHandler } from './job.ts';
import { applyLimits } from '../drivers/jail.ts';

/** E4 (and re-application at agent start): post-start limits; a running jail is pinned at once when asked. */
export const applyJailLimits: JobHandler<'jail.apply-limits'> = async (ctx, p) => {
  await ctx.progress('writing post-start limits', 20);
  const { appliedNow } = await applyLimits(ctx.exec, p.ctid, { cpuSet: p.cpuSet, memoryBytes: p.memoryBytes }, p.applyNow);
  return { ctid: p.ctid, cpuSet: p.cpuSet, appliedNow };
};
