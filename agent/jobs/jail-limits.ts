import type { JobHandler } from './job.ts';
import { applyLimits } from '../drivers/jail.ts';

/**
 * E4 (and re-application at agent start): post-start limits; a running jail is pinned at once when asked. The
 * result's cpuSet is what the host got (fitted to its CPUs); a memory limit on a host without RACCT fails.
 */
export const applyJailLimits: JobHandler<'jail.apply-limits'> = async (ctx, p) => {
  await ctx.progress('writing post-start limits', 20);
  const { appliedNow, cpuSet } = await applyLimits(ctx.exec, p.ctid, { cpuSet: p.cpuSet, memoryBytes: p.memoryBytes }, p.applyNow);
  return { ctid: p.ctid, cpuSet, appliedNow };
};
