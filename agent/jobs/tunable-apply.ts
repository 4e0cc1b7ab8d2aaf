import { setSysctl } from '../drivers/sysctl.ts';
import type { JobHandler } from './job.ts';

/**
 * E11 `tunable.apply` (also what the agent runs for every persisted setting when it starts): `sysctl
 * name=value`; sysctl's own message (read-only tunable, invalid integer, unknown oid) fails the task.
 */
export const tunableApply: JobHandler<'tunable.apply'> = async (ctx, p) => {
  await ctx.progress('applying', 0, `sysctl ${p.name}=${p.value}`);
  const change = await setSysctl(ctx.exec, p.name, p.value);
  await ctx.progress('applied', 100, `${change.name}: ${change.old} -> ${change.new}`);
  return change;
};
