import { jailHost, simulatedHost } from '../../helpers/simulated-host.ts';
import { simulatedVms } from '#simulator/commands/virsh';

/**
 * The simulator's zfs destroy, in OpenZFS's words and order (zfs_main.c zfs_do_destroy, destroy_callback,
 * destroy_check_dependent; libzfs_iter.c iter_dependents_cb): app's jail runs, db's does not.
 */
async function host() {
  const e = simulatedHost(
    jailHost([
      { ctid: 401, name: 'app', dataset: 'zroot/jails/app', state: 'running' },
      { ctid: 402, name: 'db', dataset: 'zroot/jails/db', state: 'stopped' },
    ]),
  );
  for (const s of ['s1', 's2']) expect(await e.run(['zfs', 'snapshot', '-r', `zroot/jails@${s}`])).toMatchObject({ code: 0 });
  const all = async () => (await e.run(['zfs', 'list', '-H', '-t', 'all', '-o', 'name,mounted'])).stdout;
  return { e, all };
}

test('without -r: a pool is refused, and a dataset with children or snapshots lists them as zfs would destroy them', async () => {
  const { e, all } = await host();
  const before = await all();
  expect(await e.run(['zfs', 'destroy', 'zroot'])).toEqual({
    code: 1,
    stdout: '',
    stderr:
      "cannot destroy 'zroot': operation does not apply to pools\nuse 'zfs destroy -r zroot' to destroy all datasets in the pool\nuse 'zpool destroy zroot' to destroy the pool itself\n",
  });
  // snapshots are children too; each child's dependents, the child, then the snapshots oldest first
  expect(await e.run(['zfs', 'destroy', 'zroot/jails'])).toEqual({
    code: 1,
    stdout: '',
    stderr: [
      "cannot destroy 'zroot/jails': filesystem has children",
      "use '-r' to destroy the following datasets:",
      ...['zroot/jails/app@s1', 'zroot/jails/app@s2', 'zroot/jails/app', 'zroot/jails/db@s1', 'zroot/jails/db@s2', 'zroot/jails/db'],
      ...['zroot/jails@s1', 'zroot/jails@s2', ''],
    ].join('\n'),
  });
  expect(await all()).toBe(before);
  expect(await e.run(['zfs', 'destroy', '-n', 'zroot/jails'])).toMatchObject({ code: 70, stderr: expect.stringContaining('not simulated') });
});

test('-r goes past what it cannot destroy: a running jail keeps its filesystem and the one it is mounted in', async () => {
  const { e, all } = await host();
  expect(await e.run(['zfs', 'destroy', '-r', 'zroot/jails'])).toEqual({
    code: 1,
    stdout: '',
    stderr: "cannot unmount '/zroot/jails/app': pool or dataset is busy\ncannot unmount '/zroot/jails': pool or dataset is busy\n",
  });
  // the snapshots went first (one batch before each filesystem), then the idle jail's filesystem
  expect(await all()).toBe('zroot\tno\nzroot/jails\tyes\nzroot/jails/app\tyes\n');
  // -f forces the jail's mount off (MS_FORCE); then nothing is left below the pool, whose root -r leaves
  expect(await e.run(['zfs', 'destroy', '-f', '-r', 'zroot'])).toEqual({ code: 0, stdout: '', stderr: '' });
  expect(await all()).toBe('zroot\tno\n');
});

test('a filesystem whose child is held is unmounted and left (EEXIST), as destroy_callback unmounts first', async () => {
  const { e, all } = await host();
  expect(await e.run(['jail', '-r', 'app'])).toMatchObject({ code: 0 });
  expect(await e.run(['zfs', 'create', '-V', '16M', 'zroot/jails/db/disk'])).toMatchObject({ code: 0 });
  // a running VM's disk: its bhyve holds the zvol open
  await e.simulator.state((s) => void simulatedVms(s).push({ rid: 7, name: 'vm', state: 'running', zvols: ['zroot/jails/db/disk'] }));
  expect(await e.run(['zfs', 'destroy', '-r', 'zroot/jails/db'])).toEqual({
    code: 1,
    stdout: '',
    stderr: "cannot destroy 'zroot/jails/db/disk': dataset is busy\ncannot destroy 'zroot/jails/db': dataset already exists\n",
  });
  expect(await all()).toContain('zroot/jails/db\tno\nzroot/jails/db/disk\t-\n');
  expect(await all()).not.toContain('zroot/jails/db@');
});
