import { jailHost, simulatedHost } from '../../helpers/simulated-host.ts';
import { readFile, writeFile } from '#simulator/file-tree';
import type { SimulatorExecutor } from '#simulator/executor';

/**
 * The simulator's mount state of filesystems, as OpenZFS 2.2 on FreeBSD 14 keeps it: `zfs recv -u` leaves what it
 * receives unmounted (its files not at its mountpoint), `zfs mount` mounts, `mounted` answers yes/no/-, and
 * neither rename nor a mountpoint change mounts a filesystem that was not mounted (zfsprops(7)).
 */
const APP = 'zroot/jails/app';
const host = () => {
  const h = jailHost();
  // jails mounted under /jails through zroot/jails; app's mountpoint is inherited (/jails/app)
  h.datasets[1].mountpoint = '/jails';
  h.datasets.push({ name: APP, type: 'filesystem', usedBytes: 2 ** 20 }, { name: 'zroot/swap', type: 'volume', usedBytes: 2 ** 30, volsizeBytes: 2 ** 30 });
  return simulatedHost(h);
};
const at = (e: SimulatorExecutor, path: string) => e.simulator.state((s) => readFile(s, path));
const zfs = (e: SimulatorExecutor, ...args: string[]) => e.run(['zfs', ...args]);

/** app with one file and a snapshot, sent and received with -u as zroot/jails/copy (inheriting /jails/copy). */
async function received() {
  const e = host();
  await e.simulator.state((s) => void writeFile(s, '/jails/app/etc/motd', 'hello', '644', true));
  expect((await zfs(e, 'snapshot', `${APP}@s1`)).code).toBe(0);
  const stream = await zfs(e, 'send', '-R', `${APP}@s1`);
  expect(await e.run(['zfs', 'recv', '-u', '-x', 'mountpoint', 'zroot/jails/copy'], { stdin: stream.stdout })).toMatchObject({ code: 0, stderr: '' });
  return e;
}

test('seeded filesystems are mounted, with inherited mountpoints; `mounted` is yes/no, `-` for volumes and snapshots', async () => {
  const e = await received();
  expect((await zfs(e, 'get', '-H', '-o', 'name,value,source', 'mountpoint', APP)).stdout).toBe(`${APP}\t/jails/app\tinherited from zroot/jails\n`);
  expect((await zfs(e, 'list', '-H', '-o', 'name,canmount,mounted', '-r', 'zroot')).stdout).toBe(
    ['zroot\ton\tno', 'zroot/jails\ton\tyes', `${APP}\ton\tyes`, 'zroot/jails/copy\ton\tno', 'zroot/swap\t-\t-', ''].join('\n'),
  );
  expect((await zfs(e, 'get', '-H', '-o', 'value,source', 'mounted', `${APP}@s1`)).stdout).toBe('-\t-\n');
  expect((await zfs(e, 'get', '-H', 'mounted', 'zroot/jails/copy')).stdout).toBe('zroot/jails/copy\tmounted\tno\t-\n');
  expect(await zfs(e, 'set', 'mounted=yes', APP)).toMatchObject({ code: 255, stderr: `cannot set property for '${APP}': 'mounted' is readonly\n` });
});

test('recv -u: the received files are not visible until zfs mount; mount refuses in libzfs words', async () => {
  const e = await received();
  expect(await at(e, '/jails/copy/etc/motd')).toBeNull();
  expect(await at(e, '/jails/copy/.zfs/snapshot/s1/etc/motd')).toBeNull();
  expect(await zfs(e, 'mount', 'zroot/jails/nope')).toEqual({ code: 1, stdout: '', stderr: "cannot open 'zroot/jails/nope': dataset does not exist\n" });
  expect(await zfs(e, 'mount', APP)).toEqual({ code: 1, stdout: '', stderr: `cannot mount '${APP}': filesystem already mounted\n` });

  // something in the mountpoint directory with overlay mounts off (inherited from zroot): refused, nothing changes
  await e.simulator.state((s) => void writeFile(s, '/jails/copy/stray', 'x', '644', true));
  expect((await zfs(e, 'set', 'overlay=off', 'zroot')).code).toBe(0);
  expect((await zfs(e, 'get', '-H', '-o', 'value,source', 'overlay', 'zroot/jails/copy')).stdout).toBe('off\tinherited from zroot\n');
  expect(await zfs(e, 'mount', 'zroot/jails/copy')).toEqual({ code: 1, stdout: '', stderr: "cannot mount '/jails/copy': directory is not empty\n" });
  expect((await zfs(e, 'get', '-H', '-o', 'value', 'mounted', 'zroot/jails/copy')).stdout).toBe('no\n');
  await e.run(['rm', '/jails/copy/stray']);

  expect(await zfs(e, 'mount', 'zroot/jails/copy')).toEqual({ code: 0, stdout: '', stderr: '' });
  expect(await at(e, '/jails/copy/etc/motd')).toBe('hello');
  expect(await at(e, '/jails/copy/.zfs/snapshot/s1/etc/motd')).toBe('hello');
  expect((await zfs(e, 'get', '-H', '-o', 'value', 'mounted', 'zroot/jails/copy')).stdout).toBe('yes\n');
  expect((await zfs(e, 'mount')).stdout).toContain(`${'zroot/jails/copy'.padEnd(30)}  /jails/copy\n`);
});

test('canmount=off and mountpoint none are refused by zfs mount', async () => {
  const e = await received();
  expect((await zfs(e, 'set', 'canmount=off', 'zroot/jails/copy')).code).toBe(0);
  expect(await zfs(e, 'mount', 'zroot/jails/copy')).toMatchObject({
    code: 1,
    stderr: "cannot mount 'zroot/jails/copy': 'canmount' property is set to 'off'\n",
  });
  expect((await zfs(e, 'get', '-H', '-o', 'value,source', 'canmount', 'zroot/jails/copy')).stdout).toBe('off\tlocal\n');
  expect(await zfs(e, 'mount', 'zroot')).toMatchObject({ code: 1, stderr: "cannot mount 'zroot': no mountpoint set\n" });
});

test('rename keeps the mount state: an unmounted filesystem stays unmounted under its new name, a mounted one moves', async () => {
  const e = await received();
  expect((await zfs(e, 'rename', 'zroot/jails/copy', 'zroot/jails/copy2')).code).toBe(0);
  expect((await zfs(e, 'get', '-H', '-o', 'value', 'mounted,mountpoint', 'zroot/jails/copy2')).stdout).toBe('no\n/jails/copy2\n');
  expect(await at(e, '/jails/copy2/etc/motd')).toBeNull();

  // the mounted original moves away; the unmounted copy renamed into its place is still not mounted
  expect((await zfs(e, 'rename', APP, `${APP}.old`)).code).toBe(0);
  expect(await at(e, '/jails/app.old/etc/motd')).toBe('hello');
  expect((await zfs(e, 'rename', 'zroot/jails/copy2', APP)).code).toBe(0);
  expect(await at(e, '/jails/app/etc/motd')).toBeNull();
  // a mountpoint change mounts it (canmount=on, key loaded: libzfs_changelist.c changelist_postfix), as real
  // OpenZFS 2.3.2 does in the differential suite; zfs mount then refuses
  expect((await zfs(e, 'set', 'mountpoint=/srv/app', APP)).code).toBe(0);
  expect((await zfs(e, 'get', '-H', '-o', 'value', 'mounted', APP)).stdout).toBe('yes\n');
  expect(await at(e, '/srv/app/etc/motd')).toBe('hello');
  expect(await zfs(e, 'mount', APP)).toMatchObject({ code: 1, stderr: `cannot mount '${APP}': filesystem already mounted\n` });
});

test('zfs unmount hides the files; a busy or unmounted filesystem is refused', async () => {
  const e = await received();
  expect(await zfs(e, 'unmount', 'zroot/jails/copy')).toMatchObject({ code: 1, stderr: "cannot unmount 'zroot/jails/copy': not currently mounted\n" });
  expect((await zfs(e, 'umount', APP)).code).toBe(0);
  expect(await at(e, '/jails/app/etc/motd')).toBeNull();
  expect((await zfs(e, 'mount', APP)).code).toBe(0);
  expect(await at(e, '/jails/app/etc/motd')).toBe('hello');
});

test("OpenZFS 2.2 mounts over a non-empty directory by default (overlay=on): the directory's files are hidden until unmount", async () => {
  const e = await received();
  expect((await zfs(e, 'get', '-H', '-o', 'value,source', 'overlay', 'zroot/jails/copy')).stdout).toBe('on\tdefault\n');
  await e.simulator.state((s) => void writeFile(s, '/jails/copy/stray', 'live', '644', true));
  expect(await zfs(e, 'mount', 'zroot/jails/copy')).toEqual({ code: 0, stdout: '', stderr: '' });
  expect(await at(e, '/jails/copy/etc/motd')).toBe('hello');
  expect(await at(e, '/jails/copy/stray')).toBeNull();
  expect((await zfs(e, 'unmount', 'zroot/jails/copy')).code).toBe(0);
  expect(await at(e, '/jails/copy/stray')).toBe('live');
  expect(await at(e, '/jails/copy/etc/motd')).toBeNull();
  // -O overlays even where the property is off
  expect((await zfs(e, 'set', 'overlay=off', 'zroot/jails/copy')).code).toBe(0);
  expect((await zfs(e, 'mount', 'zroot/jails/copy')).code).toBe(1);
  expect((await zfs(e, 'mount', '-O', 'zroot/jails/copy')).code).toBe(0);
  expect(await at(e, '/jails/copy/etc/motd')).toBe('hello');
});

test('`zfs list -r` and `zfs get -r` stay in the named tree: a dataset of another pool whose name is as long is not a child', async () => {
  // libzfs recurses through the named dataset's children (zfs_iter_filesystems), never by name length
  const h = jailHost();
  h.pools.push({ name: 'vault', vdevs: [{ type: 'disk', name: 'ada1' }], allocatedBytes: 2 ** 30 });
  h.disks.push({ name: 'ada1', sizeBytes: 500 * 2 ** 30 });
  // 'vault/replicas/x' is as long as 'zroot/jails/ab' plus '/x': the old length-only test took it for a child
  h.datasets.push(
    { name: 'zroot/jails/ab', type: 'filesystem', usedBytes: 2 ** 20 },
    { name: 'vault', type: 'filesystem', usedBytes: 2 ** 20, mountpoint: 'none' },
    { name: 'vault/replicas', type: 'filesystem', usedBytes: 2 ** 20 },
    { name: 'vault/replicas/x', type: 'filesystem', usedBytes: 2 ** 20 },
  );
  const e = simulatedHost(h);
  expect((await zfs(e, 'list', '-H', '-o', 'name', '-r', 'zroot/jails/ab')).stdout).toBe('zroot/jails/ab\n');
  expect((await zfs(e, 'get', '-H', '-o', 'name', '-r', 'canmount', 'zroot/jails/ab')).stdout).toBe('zroot/jails/ab\n');
  expect((await zfs(e, 'list', '-H', '-o', 'name', '-r', 'vault')).stdout).toBe('vault\nvault/replicas\nvault/replicas/x\n');
});
