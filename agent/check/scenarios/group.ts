import { runChecked } from '../../executors/executor.ts';
import { listGroups, listUsers, showGroup } from '../../drivers/pw.ts';
import { runJob } from '../jobs.ts';
import type { Scenario } from '../runner.ts';

/**
 * A scratch group `hm-check-<id>` (pw groupadd), its members set twice through the `group.set-members` job and
 * read back, then removed through the `group.delete` job. Only existing users become members; no user changes.
 */
export const groupScenario: Scenario = {
  name: 'group',
  title: 'group.set-members and group.delete on a scratch group hm-check-<id>',
  async run(ctx) {
    const group = `hm-check-${ctx.options.id}`;
    if ((await listGroups(ctx.exec)).some((g) => g.name === group)) throw new Error(`group ${group} exists already; not touching it`);
    const users = (await listUsers(ctx.exec)).map((u) => u.name);
    const members = ['root', ...users.filter((u) => u !== 'root')].slice(0, 2);
    if (!members.includes('root')) throw new Error('pw usershow -a lists no root');
    ctx.cleanup(`pw groupdel ${group}`, async (exec) => {
      if ((await listGroups(exec)).some((g) => g.name === group)) await runChecked(exec, ['pw', 'groupdel', '-n', group]);
    });
    await runChecked(ctx.exec, ['pw', 'groupadd', '-n', group]);
    ctx.note(`created group ${group}`);
    await runJob(ctx, 'group.set-members', { group, members });
    const first = (await showGroup(ctx.exec, group)).members;
    if (first.join(',') !== members.join(',')) throw new Error(`members are ${first.join(',') || '(none)'} after setting ${members.join(',')}`);
    await runJob(ctx, 'group.set-members', { group, members: members.slice(1) });
    const second = (await showGroup(ctx.exec, group)).members;
    if (second.join(',') !== members.slice(1).join(','))
      throw new Error(`members are ${second.join(',') || '(none)'} after setting ${members.slice(1).join(',')}`);
    await runJob(ctx, 'group.delete', { group });
    if ((await listGroups(ctx.exec)).some((g) => g.name === group)) throw new Error(`group.delete left ${group} on the host`);
    return `${group}: members ${members.join(',')} -> ${members.slice(1).join(',') || '(none)'}, deleted`;
  },
};
