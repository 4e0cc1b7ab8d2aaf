import { addMember, removeMember, showGroup } from '../drivers/pw.ts';
import type { JobHandler } from './job.ts';

type Step = { op: 'add' | 'remove'; user: string };

/**
 * E1 `group.set-members`: the group's supplementary members become the requested list. The difference
 * with the host's current list is applied one `pw groupmod` step per user (removals, then additions); when
 * a step fails, the steps already applied are undone in reverse order, so the host keeps the members it had,
 * and the task fails with pw's own message.
 */
export const groupSetMembers: JobHandler<'group.set-members'> = async (ctx, p) => {
  const current = (await showGroup(ctx.exec, p.group)).members;
  const steps: Step[] = [
    ...current.filter((u) => !p.members.includes(u)).map((user) => ({ op: 'remove' as const, user })),
    ...p.members.filter((u) => !current.includes(u)).map((user) => ({ op: 'add' as const, user })),
  ];
  const run = (s: Step, undo = false) => ((s.op === 'add') !== undo ? addMember(ctx.exec, p.group, s.user) : removeMember(ctx.exec, p.group, s.user));
  const applied: Step[] = [];
  for (const [i, step] of steps.entries()) {
    await ctx.progress('applying', Math.round((i * 100) / steps.length), `pw groupmod ${p.group} ${step.op === 'add' ? '-m' : '-d'} ${step.user}`);
    try {
      await run(step);
    } catch (err) {
      const undone: string[] = [];
      for (const done of applied.reverse()) {
        try {
          await run(done, true);
          undone.push(`${done.op === 'add' ? '-d' : '-m'} ${done.user}`);
        } catch (undoErr) {
          throw new Error(`${(err as Error).message}; rollback failed at ${done.user}: ${(undoErr as Error).message}`);
        }
      }
      throw new Error(`${(err as Error).message}${undone.length ? ` (rolled back: ${undone.join(', ')})` : ''}`);
    }
    applied.push(step);
  }
  await ctx.progress('applied', 100, `${p.group}: ${p.members.join(',')}`);
  return {
    group: p.group,
    members: p.members,
    added: steps.filter((s) => s.op === 'add').map((s) => s.user),
    removed: steps.filter((s) => s.op === 'remove').map((s) => s.user),
  };
};
