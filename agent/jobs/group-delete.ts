import { deleteGroup } from '../drivers/pw.ts';
import type { JobHandler } from './job.ts';

/** E2 `group.delete`: `pw groupdel <g>`; pw's message (e.g. unknown group) fails the task. */
export const groupDelete: JobHandler<'group.delete'> = async (ctx, p) => {
  await ctx.progress('deleting', 0, `pw groupdel ${p.group}`);
  await deleteGroup(ctx.exec, p.group);
  await ctx.progress('deleted', 100);
  return { group: p.group, deleted: true };
};
