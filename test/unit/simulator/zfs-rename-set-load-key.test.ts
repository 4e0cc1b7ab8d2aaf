import { jailHost, simulatedHost } from '../../helpers/simulated-host.ts';
import { readFile, writeFile } from '#simulator/file-tree';
import { SIM_KEY_PROPERTY } from '#simulator/commands/zfs-load-key';
import type { SimulatorExecutor } from '#simulator/executor';

/** The simulator's zfs rename / set / load-key and snapshot contents, in OpenZFS 2.2's words (E15 restores). */
const host = () => simulatedHost(jailHost([{ ctid: 401, name: 'app', dataset: 'zroot/jails/app', state: 'running' }]));
const names = (e: SimulatorExecutor) => e.simulator.state((s) => s.datasets.map((d) => d.name).filter((n) => n.startsWith('zroot/jails/')));
const at = (e: SimulatorExecutor, path: string) => e.simulator.state((s) => readFile(s, path));

test('rename moves a dataset with its snapshots; refuses an existing target, another pool, a busy filesystem', async () => {
  const e = host();
  await e.run(['jls']);
  await e.run(['zfs', 'snapshot', '-r', 'zroot/jails/app@s1']);
  expect(await e.run(['zfs', 'rename', 'zroot/jails/app', 'zroot/jails/other'])).toEqual({
    code: 1,
    stdout: '',
    stderr: "cannot unmount '/zroot/jails/app': pool or dataset is busy\n",
  });
  await e.run(['jail', '-f', '/etc/jail.conf.d/app.conf', '-r', 'app']);
  expect(await e.run(['zfs', 'rename', 'zroot/jails/app', 'tank/app'])).toMatchObject({
    code: 1,
    stderr: "cannot rename to 'tank/app': datasets must be within same pool\n",
  });
  expect(await e.run(['zfs', 'rename', 'zroot/jails/app', 'zroot/jails'])).toMatchObject({
    code: 1,
    // libzfs_dataset.c zfs_rename (zfs-2.3.2): the kernel's EEXIST is reported against the source name
    stderr: "cannot rename 'zroot/jails/app': dataset already exists\n",
  });
  expect(await e.run(['zfs', 'rename', 'zroot/jails/app', 'zroot/jails/app.old'])).toMatchObject({ code: 0, stderr: '' });
  expect(await names(e)).toEqual(['zroot/jails/app.old', 'zroot/jails/app.old@s1']);
  expect(await e.run(['zfs', 'rename', 'zroot/jails/nope', 'zroot/jails/x'])).toMatchObject({
    code: 1,
    stderr: "cannot open 'zroot/jails/nope': dataset does not exist\n",
  });
});

test('set mountpoint moves the files; read-only properties are refused', async () => {
  const e = host();
  await e.run(['jail', '-f', '/etc/jail.conf.d/app.conf', '-r', 'app']);
  await e.simulator.state((s) => void writeFile(s, '/zroot/jails/app/f.txt', 'hello', '644', true));
  expect((await e.run(['zfs', 'set', 'mountpoint=/srv/app', 'zroot/jails/app'])).code).toBe(0);
  expect(await at(e, '/srv/app/f.txt')).toBe('hello');
  expect(await at(e, '/zroot/jails/app/f.txt')).toBeNull();
  expect((await e.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint', 'zroot/jails/app'])).stdout).toBe('/srv/app\tlocal\n');
  expect(await e.run(['zfs', 'set', 'guid=1', 'zroot/jails/app'])).toMatchObject({
    code: 255,
    stderr: "cannot set property for 'zroot/jails/app': 'guid' is readonly\n",
  });
  expect(await e.run(['zfs', 'set', 'mountpoint=rel', 'zroot/jails/app'])).toMatchObject({ code: 255 });
});

test('a snapshot keeps what its filesystem held, under .zfs/snapshot, and a stream carries that', async () => {
  const e = host();
  await e.simulator.state((s) => void writeFile(s, '/zroot/jails/app/f.txt', 'one', '644', true));
  await e.run(['zfs', 'snapshot', '-r', 'zroot/jails/app@s1']);
  await e.simulator.state((s) => void writeFile(s, '/zroot/jails/app/f.txt', 'two', '644', true));
  expect(await at(e, '/zroot/jails/app/.zfs/snapshot/s1/f.txt')).toBe('one');
  const stream = await e.run(['zfs', 'send', '-R', 'zroot/jails/app@s1']);
  expect((await e.run(['zfs', 'recv', '-u', '-x', 'mountpoint', 'zroot/jails/copy'], { stdin: stream.stdout })).code).toBe(0);
  // received unmounted (-u): the files appear once it is mounted
  expect(await at(e, '/zroot/jails/copy/f.txt')).toBeNull();
  expect((await e.run(['zfs', 'mount', 'zroot/jails/copy'])).code).toBe(0);
  expect(await at(e, '/zroot/jails/copy/f.txt')).toBe('one');
  expect((await e.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint', 'zroot/jails/copy'])).stdout).toBe(
    '/zroot/jails/copy\tinherited from zroot/jails\n',
  );
  await e.run(['zfs', 'destroy', 'zroot/jails/app@s1']);
  expect(await at(e, '/zroot/jails/app/.zfs/snapshot/s1/f.txt')).toBeNull();
});

test("load-key reads stdin and answers in libzfs's words", async () => {
  const e = host();
  await e.run(['jls']);
  expect(await e.run(['zfs', 'load-key', '-L', 'prompt', 'zroot/jails/app'], { stdin: 'whatever\n' })).toMatchObject({
    code: 255,
    stderr: "Key load error: 'zroot/jails/app' is not encrypted.\n",
  });
  await e.simulator.state((s) => {
    s.datasets.find((d) => d.name === 'zroot/jails/app')!.properties = {
      encryption: 'aes-256-gcm',
      keyformat: 'passphrase',
      keylocation: 'prompt',
      keystatus: 'unavailable',
      [SIM_KEY_PROPERTY]: 'the passphrase',
    };
  });
  expect(await e.run(['zfs', 'load-key', '-L', 'prompt', 'zroot/jails/app'], { stdin: 'wrong one\n' })).toMatchObject({
    code: 255,
    stderr: "Key load error: Incorrect key provided for 'zroot/jails/app'.\n",
  });
  expect((await e.run(['zfs', 'load-key', '-L', 'prompt', 'zroot/jails/app'], { stdin: 'the passphrase\n' })).code).toBe(0);
  expect((await e.run(['zfs', 'get', '-H', '-o', 'value', 'keystatus', 'zroot/jails/app'])).stdout).toBe('available\n');
  expect(await e.run(['zfs', 'load-key', '-L', 'prompt', 'zroot/jails/app'], { stdin: 'the passphrase\n' })).toMatchObject({
    code: 255,
    stderr: "Key load error: Key already loaded for 'zroot/jails/app'.\n",
  });
});
