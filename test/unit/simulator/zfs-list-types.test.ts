import { jailHost, simulatedHost } from '../../helpers/simulated-host.ts';

/**
 * Which datasets `zfs list`/`zfs get` show for a type filter, as cmd/zfs/zfs_iter.c zfs_for_each / zfs_callback
 * and zfs_do_list pick them: a named dataset shows only when its type is asked for (recursion opens a filesystem
 * of another type to reach below it); below it, snapshots only when asked for (listsnapshots=off).
 */
async function host() {
  const e = simulatedHost(jailHost([{ ctid: 401, name: 'app', dataset: 'zroot/jails/app', state: 'stopped' }]));
  expect(await e.run(['zfs', 'snapshot', '-r', 'zroot/jails@s1'])).toMatchObject({ code: 0 });
  expect(await e.run(['zfs', 'create', '-V', '16M', 'zroot/jails/vol'])).toMatchObject({ code: 0 });
  return (...args: string[]) => e.run(['zfs', ...args]);
}

test('list: -t filters the named dataset too; recursion reaches below a filesystem of another type', async () => {
  const zfs = await host();
  expect(await zfs('list', '-H', '-o', 'name', '-t', 'volume', '-r', 'zroot')).toEqual({ code: 0, stdout: 'zroot/jails/vol\n', stderr: '' });
  expect(await zfs('list', '-H', '-o', 'name', '-r', 'zroot/jails')).toMatchObject({ stdout: 'zroot/jails\nzroot/jails/app\nzroot/jails/vol\n' });
  // without -t a snapshot may be named; -t snapshot with a dataset lists that dataset's own snapshots
  expect(await zfs('list', '-H', '-o', 'name', 'zroot/jails/app@s1')).toMatchObject({ code: 0, stdout: 'zroot/jails/app@s1\n' });
  expect(await zfs('list', '-H', '-o', 'name', '-t', 'snapshot', 'zroot/jails')).toMatchObject({ code: 0, stdout: 'zroot/jails@s1\n' });
  expect(await zfs('list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'zroot/jails')).toMatchObject({ stdout: 'zroot/jails@s1\nzroot/jails/app@s1\n' });
  expect(await zfs('list', '-H', '-o', 'name', '-t', 'volume', 'zroot/jails')).toEqual({
    code: 1,
    stdout: '',
    stderr: "cannot open 'zroot/jails': operation not applicable to datasets of this type\n",
  });
  expect(await zfs('list', '-H', '-o', 'name', '-t', 'filesystem', 'zroot/jails@s1')).toMatchObject({
    code: 1,
    stderr: "cannot open 'zroot/jails@s1': snapshot delimiter '@' is not expected here\n",
  });
});

test('get: a snapshot-only type wants a snapshot name', async () => {
  const zfs = await host();
  expect(await zfs('get', '-H', '-o', 'name', '-t', 'snapshot', 'used', 'zroot/jails')).toMatchObject({
    code: 1,
    stderr: "cannot open 'zroot/jails': missing '@' delimiter in snapshot name\n",
  });
  expect(await zfs('get', '-H', '-o', 'name', '-t', 'volume', '-r', 'used', 'zroot/jails')).toMatchObject({ code: 0, stdout: 'zroot/jails/vol\n' });
});
