import type { JobHandler } from './job.ts';
import { applyHooks } from '../drivers/jail.ts';

/** E3 (and re-application at agent start): hook scripts and `exec.<phase> +=` lines; effective on the next start/stop. */
export const applyJailHooks: JobHandler<'jail.apply-hooks'> = async (ctx, p) => {
  await ctx.progress('writing hook scripts', 20);
  const wired = await applyHooks(ctx.exec, p.ctid, p.hooks);
  return { ctid: p.ctid, wired };
};
