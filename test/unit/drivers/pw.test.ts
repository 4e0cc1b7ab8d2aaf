// @tier stack
import { fixture } from '../../helpers/fixtures.ts';
import { simulatedHost } from '../../helpers/simulated-host.ts';
import { testHost } from '../../helpers/agent.ts';
import { parseGroupshow, parseUsershow, listGroups, listUsers } from '#agent/drivers/pw';
import { groupSetMembers } from '#agent/jobs/group-members';
import { groupDelete } from '#agent/jobs/group-delete';
import type { JobContext } from '#agent/jobs/job';
import type { Executor } from '#agent/executors/executor';
import type { SimHost } from '#shared/seed/host/schema';

/** The users and groups of the pw fixtures (freebsd-src's pw tests), as a simulated host holds them. */
const pwHost = (): SimHost =>
  testHost({
    users: [
      { name: 'root', uid: 0, gid: 0, gecos: 'Charlie &', home: '/root', shell: '/bin/csh' },
      { name: 'testuser', uid: 1001, gid: 1001 },
      ...['user1', 'user2', 'user3', 'user4'].map((name, i) => ({ name, uid: 2001 + i, gid: 1005 })),
    ],
    groups: [
      { name: 'wheel', gid: 0, members: ['root'] },
      { name: 'testgroup', gid: 1002, members: ['testuser'] },
      { name: 'testgroup2', gid: 1003, members: [] },
      { name: 'foo', gid: 1005, members: ['user1', 'user2', 'user3', 'user4'] },
    ],
  });

const ctxFor = (exec: Executor, progress: string[] = []): JobContext => ({
  exec,
  task: { id: 1, kind: 'group.set-members', resource: 'group:1', nodeId: 'n' },
  progress: async (phase, _p, out) => void progress.push(`${phase} ${out ?? ''}`.trim()),
  signal: new AbortController().signal,
});

describe('pw: the simulator prints what FreeBSD prints', () => {
  test('groupshow and usershow match the verbatim samples', async () => {
    const exec = simulatedHost(pwHost());
    expect((await exec.run(['pw', 'groupshow', 'testgroup'])).stdout).toBe(fixture('pw-groupshow-member.txt'));
    expect((await exec.run(['pw', 'groupshow', 'testgroup2'])).stdout).toBe(fixture('pw-groupshow-no-members.txt'));
    expect((await exec.run(['pw', 'groupshow', 'foo'])).stdout).toBe(fixture('pw-groupshow-multi-members.txt'));
    expect((await exec.run(['pw', 'groupshow', '-n', 'wheel', '-g', '-1'])).stdout).toBe(fixture('pw-groupshow-wheel.txt'));
    expect((await exec.run(['pw', 'usershow', '-n', 'root', '-u', '-1'])).stdout).toBe(fixture('pw-usershow-root.txt'));
  });

  test('unknown group and gid: the samples’ messages with exit 65', async () => {
    const exec = simulatedHost(pwHost());
    expect(await exec.run(['pw', 'groupshow', 'bogus'])).toEqual({ code: 65, stdout: '', stderr: fixture('pw-groupshow-unknown-group-error.txt') });
    expect(await exec.run(['pw', 'groupshow', '-g', '4242'])).toEqual({ code: 65, stdout: '', stderr: fixture('pw-groupshow-unknown-gid-error.txt') });
    expect((await exec.run(['pw', 'groupmod', 'bogus', '-m', 'root'])).stderr).toBe(fixture('pw-groupshow-unknown-group-error.txt'));
    expect((await exec.run(['pw', 'groupdel', 'bogus'])).code).toBe(65);
  });

  test('groupmod -m adds (unknown user: exit 67), -d removes (a non-member is ignored), groupdel deletes', async () => {
    const exec = simulatedHost(pwHost());
    expect((await exec.run(['pw', 'groupmod', 'testgroup2', '-m', 'user1,user2'])).code).toBe(0);
    expect((await exec.run(['pw', 'groupmod', 'testgroup2', '-d', 'user1,nobody'])).code).toBe(0);
    expect((await exec.run(['pw', 'groupshow', 'testgroup2'])).stdout).toBe('testgroup2:*:1003:user2\n');
    expect(await exec.run(['pw', 'groupmod', 'testgroup2', '-m', 'ghost'])).toEqual({ code: 67, stdout: '', stderr: "pw: user `ghost' does not exist\n" });
    expect((await exec.run(['pw', 'groupdel', 'testgroup2'])).code).toBe(0);
    expect((await exec.run(['pw', 'groupshow', 'testgroup2'])).code).toBe(65);
  });
});

describe('pw driver', () => {
  test('parses the verbatim samples', () => {
    expect(parseGroupshow(fixture('pw-groupshow-multi-members.txt'))).toEqual([{ name: 'foo', gid: 1005, members: ['user1', 'user2', 'user3', 'user4'] }]);
    expect(parseGroupshow(fixture('pw-groupshow-no-members.txt'))).toEqual([{ name: 'testgroup2', gid: 1003, members: [] }]);
    expect(parseUsershow(fixture('pw-usershow-root.txt'))).toEqual([{ name: 'root', uid: 0, gid: 0 }]);
    expect(() => parseGroupshow('garbage\n')).toThrow(/unexpected line/);
  });

  test('lists every user with its primary group and every group with its members', async () => {
    const exec = simulatedHost(pwHost());
    expect((await listUsers(exec)).find((u) => u.name === 'user3')).toEqual({ name: 'user3', uid: 2003, gid: 1005 });
    expect((await listGroups(exec)).map((g) => g.name)).toEqual(['wheel', 'testgroup', 'testgroup2', 'foo']);
  });
});

describe('group jobs on a simulated host', () => {
  const members = async (exec: Executor, g: string) => (await listGroups(exec)).find((x) => x.name === g)?.members;

  test('set-members applies only the difference, one pw groupmod per user', async () => {
    const exec = simulatedHost(pwHost());
    const progress: string[] = [];
    const result = await groupSetMembers(ctxFor(exec, progress), { group: 'foo', members: ['user2', 'testuser', 'user4'] });
    expect(result).toEqual({ group: 'foo', members: ['user2', 'testuser', 'user4'], added: ['testuser'], removed: ['user1', 'user3'] });
    expect(await members(exec, 'foo')).toEqual(['user2', 'user4', 'testuser']);
    expect(progress.filter((p) => p.startsWith('applying'))).toEqual([
      'applying pw groupmod foo -d user1',
      'applying pw groupmod foo -d user3',
      'applying pw groupmod foo -m testuser',
    ]);
  });

  test('a failing step in the middle undoes the applied steps: the host keeps its members', async () => {
    const exec = simulatedHost(pwHost());
    // the store still knew `user3`; the host removed it since
    await exec.run(['pw', 'userdel', 'user3']);
    const before = await members(exec, 'testgroup');
    const run = groupSetMembers(ctxFor(exec), { group: 'testgroup', members: ['user1', 'user2', 'user3', 'user4'] });
    await expect(run).rejects.toThrow("pw: user `user3' does not exist (rolled back: -d user2, -d user1, -m testuser)");
    expect(await members(exec, 'testgroup')).toEqual(before);
  });

  test('delete runs pw groupdel; an unknown group fails with pw’s message', async () => {
    const exec = simulatedHost(pwHost());
    await groupDelete(ctxFor(exec), { group: 'testgroup2' });
    expect(await members(exec, 'testgroup2')).toBeUndefined();
    await expect(groupDelete(ctxFor(exec), { group: 'testgroup2' })).rejects.toThrow("pw: unknown group `testgroup2'");
  });
});
