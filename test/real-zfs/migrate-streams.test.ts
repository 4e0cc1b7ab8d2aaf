import {
  estimateSend,
  loadKeyFromLocation,
  migrationEncryption,
  mountpointPath,
  sendTo,
  setMountpointTo,
  snapshot,
  type Stream,
} from '#agent/drivers/zfs/replication';
import { mountForUse } from '#agent/drivers/zfs/mount';
import { executorFor, type BootedGuest, bootGuest, type Guest, guest } from './guest.ts';
import { createPool, PASSPHRASE_ROOT, propsWithSource, values } from './scenario.ts';
import type { SshExecutor } from '#agent/executors/ssh';

/**
 * E20's ZFS steps between two hosts' pools, on real OpenZFS: the dataset keeps its name on the target (the job
 * receives into the same name), so the target is a second guest with its own pool of the same name. The steps
 * are agent/jobs/jail-migrate.ts's, in its order, with its driver functions: the source's encryption and
 * mountpoint, snapshot 1, the size estimate, the initial full send; snapshot 2, the final incremental; the key
 * loaded from its location (encrypted), the mountpoint set and the copy mounted for use. The jail around them
 * (jail(8), its conf) is FreeBSD's and stays with the simulator.
 */
const POOL = 'tank';
let a: Guest;
let second: BootedGuest;
let b: SshExecutor;
const bOk = async (argv: string[]) => {
  const r = await b.run(argv);
  if (r.code !== 0) throw new Error(`${argv.join(' ')} on the target exited ${r.code}: ${r.stderr}`);
  return r.stdout;
};

beforeAll(async () => {
  a = await guest();
  second = await bootGuest((l) => process.stdout.write(`target: ${l}\n`));
  b = executorFor(second.port, second.keyFile);
  await createPool(a, POOL);
  await bOk(['mkdir', '-p', '/var/tmp/hm-vdevs']);
  await bOk(['truncate', '-s', '256M', '/var/tmp/hm-vdevs/tank-0.img']);
  await bOk(['zpool', 'create', POOL, '/var/tmp/hm-vdevs/tank-0.img']);
  for (const exec of [a.exec, b]) {
    const r = await exec.run(['zfs', 'create', `${POOL}/jails`]);
    if (r.code) throw new Error(r.stderr);
  }
}, 300_000);
afterAll(async () => {
  await b?.close();
  await second?.stop();
  if (a) {
    await a.run(['zpool', 'destroy', '-f', POOL]);
    await a.run(['rm', '-f', '/var/tmp/hm-vdevs/tank-0.img']);
    await a.close();
  }
});

/** The migration's ZFS steps, as the job runs them. */
async function migrate(dataset: string, jailPath: string) {
  const encryption = await migrationEncryption(a.exec, dataset);
  const mountAt = await mountpointPath(a.exec, dataset, jailPath);
  await snapshot(a.exec, `${dataset}@hm-migrate-1`);
  const stream = (snap: string, from: string | null): Stream => ({ dataset, snap, from, encryption });
  const estimate = await estimateSend(a.exec, stream('hm-migrate-1', null));
  const fullBytes = await sendTo(a.exec, b, stream('hm-migrate-1', null));
  await a.sh(`printf final > ${mountAt}/final.txt`);
  await snapshot(a.exec, `${dataset}@hm-migrate-2`);
  const incBytes = await sendTo(a.exec, b, stream('hm-migrate-2', 'hm-migrate-1'));
  if (encryption) await loadKeyFromLocation(b, dataset);
  await setMountpointTo(b, dataset, mountAt);
  await mountForUse(b, dataset);
  return { estimate, fullBytes, incBytes, mountAt };
}

test('initial full and final incremental send/recv to the other host: same snapshots and GUIDs, mounted at the jail path', async () => {
  const DS = `${POOL}/jails/web`;
  await a.ok(['zfs', 'create', '-o', 'mountpoint=/usr/local/jails/web', DS]);
  await a.sh('printf initial > /usr/local/jails/web/initial.txt');
  const r = await migrate(DS, '/usr/local/jails/web');
  expect(r.estimate).toBeGreaterThan(0);
  expect(r.fullBytes).toBeGreaterThan(0);
  expect(r.incBytes).toBeGreaterThan(0);
  const snaps = (exec: SshExecutor) => exec.run(['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', DS]).then((x) => x.stdout);
  expect(await snaps(b)).toBe(await snaps(a.exec));
  expect((await bOk(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint,mounted', DS])).split('\n').filter(Boolean)).toEqual([
    '/usr/local/jails/web\tlocal',
    'yes\t-',
  ]);
  expect(await bOk(['cat', '/usr/local/jails/web/initial.txt', '/usr/local/jails/web/final.txt'])).toBe('initialfinal');
});

test('an encrypted dataset travels raw, arrives with its keylocation, and the target loads the key from it', async () => {
  const KEY = '/root/hm-migrate.key';
  for (const exec of [a.exec, b]) {
    const w = await exec.run(['sh', '-c', `printf '%s' 'migration passphrase' > ${KEY} && chmod 600 ${KEY}`]);
    if (w.code) throw new Error(w.stderr);
  }
  const DS = `${POOL}/jails/db`;
  await a.ok(['zfs', 'create', ...PASSPHRASE_ROOT, '-o', `keylocation=file://${KEY}`, '-o', 'mountpoint=/usr/local/jails/db', DS]);
  await a.sh('printf initial > /usr/local/jails/db/initial.txt');
  await migrate(DS, '/usr/local/jails/db');
  expect((await bOk(['zfs', 'get', '-H', '-o', 'value', 'encryptionroot,keylocation,keystatus,mounted', DS])).split('\n').filter(Boolean)).toEqual([
    DS,
    `file://${KEY}`,
    'available',
    'yes',
  ]);
  expect(await bOk(['cat', '/usr/local/jails/db/final.txt'])).toBe('final');
  // the source side is as the job leaves it before it removes the jail there: its key still loaded
  expect(await values(a, 'keystatus', DS)).toEqual(['available']);
  expect((await propsWithSource(a, 'keylocation', DS)).keylocation).toBe(`file://${KEY} local`);
});
