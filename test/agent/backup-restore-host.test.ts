// @tier fast
import type { SimulatorExecutor } from '#simulator/executor';
import { jailHost, simulatedHost } from '../helpers/simulated-host.ts';
import type { JobContext } from '#agent/jobs/job';
import { restoreBackup } from '#agent/jobs/backup-restore';
import { isRunning } from '#agent/drivers/jail';
import { runPiped } from '#agent/executors/pipe';
import { recvArgv } from '#agent/drivers/zfs/backup-stream';
import { findSimJail } from '#simulator/commands/jail-model';
import { readFile, writeFile } from '#simulator/file-tree';
import { SIM_KEY_PROPERTY } from '#simulator/commands/zfs-load-key';
import type { BackupRestorePayload } from '#shared/agent-api/task-kinds';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * E15's host work between a runner and a backup target, both simulated, in-process: the job's snapshots are
 * made with the simulator's real commands (zfs snapshot -r on the runner, zfs send | zfs recv to the target),
 * then restored. The SSH leg between hosts is the one E20 uses (test/agent/jail-e2e.test.ts).
 */
const JOB = 5;
const DS = 'zroot/jails/web';
const BACKUP = 'zroot/backups/web';
const DATA = `/${DS}/srv/data.txt`;
/** where the data is when the jails' datasets inherit their mountpoint from zroot/jails, mounted at /jails */
const INHERITED_DATA = '/jails/web/srv/data.txt';
const snap = (n: number) => `hm-backup-${JOB}-2026010${n}T000000Z`;
const WEB = { ctid: 301, name: 'web', dataset: DS, state: 'running' as const };

function targetHost(): SimHost {
  const h = jailHost();
  h.datasets.push({ name: 'zroot/backups', type: 'filesystem', usedBytes: 2 ** 20, mountpoint: '/zroot/backups' });
  return h;
}

const write = (e: SimulatorExecutor, path: string, content: string) => e.simulator.state((s) => void writeFile(s, path, content, '644', true));
const read = (e: SimulatorExecutor, path: string) => e.simulator.state((s) => readFile(s, path));
const names = (e: SimulatorExecutor, prefix: string) => e.simulator.state((s) => s.datasets.map((d) => d.name).filter((n) => n.startsWith(prefix)));

async function run(e: SimulatorExecutor, argv: string[]) {
  const r = await e.run(argv);
  if (r.code !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`);
}

/** A backup run as the scheduled runs make it: snapshot on the runner, (incremental) send to the target. */
async function backupRun(a: SimulatorExecutor, b: SimulatorExecutor, n: number, content: string, data = DATA, raw = false) {
  await write(a, data, content);
  await run(a, ['zfs', 'snapshot', '-r', `${DS}@${snap(n)}`]);
  const send = ['zfs', 'send', '-R', ...(raw ? ['-w'] : []), ...(n > 1 ? ['-i', `@${snap(n - 1)}`] : []), `${DS}@${snap(n)}`];
  const r = await runPiped(a, send, b, ['zfs', 'recv', '-F', '-u', BACKUP]);
  if (r.source.code || r.target.code) throw new Error(`backup run ${n}: ${r.source.stderr}${r.target.stderr}`);
}

/**
 * Runner with the jail running and three job snapshots (data v1, v2, v3) on both sides; the live data is v4. By
 * default the jail's dataset has a local mountpoint (/zroot/jails/web); `inherited`: zroot/jails is mounted at
 * /jails and the jail's dataset inherits /jails/web.
 */
async function arrange(extraJails: SimHost['jails'] = [], inherited = false) {
  const seed = jailHost([WEB, ...(extraJails ?? [])]);
  if (inherited) {
    seed.datasets[1].mountpoint = '/jails';
    seed.datasets.push({ name: DS, type: 'filesystem', usedBytes: 2 ** 20 });
  }
  const a = simulatedHost(seed);
  const b = simulatedHost(targetHost());
  const data = inherited ? INHERITED_DATA : DATA;
  for (const n of [1, 2, 3]) await backupRun(a, b, n, `v${n}`, data);
  await write(a, data, 'v4');
  return { a, b };
}

function ctx(a: SimulatorExecutor, b: SimulatorExecutor, phases: string[], output: string[] = []): JobContext {
  return {
    exec: a,
    task: { id: 91, kind: 'backup.restore', resource: `backup-job:${JOB}`, nodeId: 'node-a', attempt: 1 },
    peer: (id) => {
      if (id !== 'node-b') throw new Error(`unexpected peer ${id}`);
      return b;
    },
    progress: async (phase, _pct, out) => {
      phases.push(phase);
      if (out) output.push(out);
    },
    signal: new AbortController().signal,
  };
}

const payload = (over: Partial<BackupRestorePayload> = {}): BackupRestorePayload => ({
  jobId: JOB,
  eventId: 1,
  dataset: DS,
  snapshot: snap(2),
  source: { kind: 'node', nodeId: 'node-b', dataset: BACKUP },
  guest: { type: 'jail', id: 301, name: 'web' },
  ...over,
});

test('restores the second snapshot while the jail runs: received, verified, jail stopped, datasets swapped, jail started, old one gone', async () => {
  const { a, b } = await arrange();
  const phases: string[] = [];
  const c = ctx(a, b, phases);
  const report = c.progress;
  // the jail's state when each phase begins
  const runningAt: Record<string, boolean> = {};
  c.progress = async (phase, pct, out) => {
    runningAt[phase] = await isRunning(a, 'web');
    return report(phase, pct, out);
  };
  const result = await restoreBackup(c, payload());
  expect(result).toMatchObject({
    jobId: JOB,
    dataset: DS,
    snapshot: snap(2),
    from: 'target',
    guest: { type: 'jail', id: 301, state: 'running' },
    warnings: [],
  });
  expect(phases).toEqual([
    'receiving',
    'verifying',
    'stopping the guest',
    'swapping the datasets',
    'mounting the restored dataset',
    'starting the guest',
    'removing the old dataset',
  ]);

  // the data of the second snapshot, at the jail's path, in a running jail that was restarted
  expect(await read(a, DATA)).toBe('v2');
  expect(runningAt).toEqual({
    receiving: true,
    verifying: true,
    'stopping the guest': true,
    'swapping the datasets': false,
    'mounting the restored dataset': false,
    'starting the guest': false,
    'removing the old dataset': true,
  });
  expect(await isRunning(a, 'web')).toBe(true);
  expect(await a.simulator.state((s) => findSimJail(s, 'web')!.path)).toBe(`/${DS}`);
  // one dataset, with the received snapshots up to the restored one; nothing left beside it
  expect(await names(a, 'zroot/jails/web')).toEqual([DS, `${DS}@${snap(1)}`, `${DS}@${snap(2)}`]);
  expect((await a.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint', DS])).stdout).toBe(`/${DS}\tlocal\n`);
  // the target is untouched
  expect(await names(b, BACKUP)).toEqual([BACKUP, ...[1, 2, 3].map((n) => `${BACKUP}@${snap(n)}`)]);
});

test('no snapshot given: the newest job snapshot on the target, said in the output', async () => {
  const { a, b } = await arrange();
  const output: string[] = [];
  const result = await restoreBackup(ctx(a, b, [], output), payload({ snapshot: null }));
  expect(result).toMatchObject({ snapshot: snap(3), from: 'target' });
  expect(output).toContain(`no snapshot given: restoring the job's newest, ${snap(3)}`);
  expect(await read(a, DATA)).toBe('v3');
});

test("a snapshot the target lacks comes from the runner's own copy; one missing on both sides fails naming it and changes nothing", async () => {
  const { a, b } = await arrange();
  await run(b, ['zfs', 'destroy', `${BACKUP}@${snap(1)}`]);
  const output: string[] = [];
  const result = await restoreBackup(ctx(a, b, [], output), payload({ snapshot: snap(1) }));
  expect(result).toMatchObject({ snapshot: snap(1), from: 'local' });
  expect(output.join('\n')).toContain(`snapshot ${snap(1)} is missing on the target (node node-b, ${BACKUP}): restoring this host's copy`);
  expect(await read(a, DATA)).toBe('v1');

  await expect(restoreBackup(ctx(a, b, []), payload({ snapshot: `${snap(9)}` }))).rejects.toThrow(
    `snapshot ${snap(9)} is missing on the target (node node-b, ${BACKUP}) and on this host (${DS}@${snap(9)})`,
  );
  expect(await read(a, DATA)).toBe('v1');
  expect(await isRunning(a, 'web')).toBe(true);
});

test('an inherited mountpoint: the restored dataset, received unmounted and renamed into place, is mounted before the jail starts', async () => {
  const { a, b } = await arrange([], true);
  const phases: string[] = [];
  const c = ctx(a, b, phases);
  const report = c.progress;
  // at the mount step, the jail's path is empty: the restored filesystem is in place but not mounted yet
  let atMount: string | null | undefined;
  c.progress = async (phase, pct, out) => {
    if (phase === 'mounting the restored dataset') atMount = await read(a, INHERITED_DATA);
    return report(phase, pct, out);
  };
  await restoreBackup(c, payload());
  expect(atMount).toBeNull();
  expect(await read(a, INHERITED_DATA)).toBe('v2');
  expect(await isRunning(a, 'web')).toBe(true);
  expect(await a.simulator.state((s) => findSimJail(s, 'web')!.path)).toBe('/jails/web');
  expect((await a.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint,mounted', DS])).stdout).toBe('/jails/web\tinherited from zroot/jails\nyes\t-\n');
  expect(await names(a, 'zroot/jails/web')).toEqual([DS, `${DS}@${snap(1)}`, `${DS}@${snap(2)}`]);
});

// An inherited mountpoint only: a local one is written back with `zfs set mountpoint`, which mounts the dataset
// at once (libzfs changelist_postfix mounts a canmount=on filesystem whose mountpoint changed, as the real guest
// showed), so the mount step this test aims at does not run for it.
test.each([true])(
  'a failure at the mount step (the mountpoint directory not empty) puts the original back, mounted with its data, and starts the jail again (inherited mountpoint: %s)',
  async (inherited) => {
    const { a, b } = await arrange([], inherited);
    const data = inherited ? INHERITED_DATA : DATA;
    const dir = data.slice(0, data.indexOf('/srv/'));
    const phases: string[] = [];
    const c = ctx(a, b, phases);
    const report = c.progress;
    // something writes into the jail's empty directory while nothing is mounted there: with overlay mounts off
    // (OpenZFS mounts over it by default), zfs mount refuses it
    await run(a, ['zfs', 'set', 'overlay=off', 'zroot']);
    c.progress = async (phase, pct, out) => {
      if (phase === 'mounting the restored dataset') await write(a, `${dir}/stray`, 'x');
      return report(phase, pct, out);
    };
    await expect(restoreBackup(c, payload())).rejects.toThrow(
      `cannot mount '${dir}': directory is not empty; undone: ${DS} is the original and the guest runs again`,
    );
    expect(phases).not.toContain('starting the guest');
    expect(await read(a, data)).toBe('v4');
    expect(await isRunning(a, 'web')).toBe(true);
    expect((await a.run(['zfs', 'get', '-H', '-o', 'value', 'mounted', DS])).stdout).toBe('yes\n');
    expect(await names(a, 'zroot/jails/web')).toEqual([DS, ...[1, 2, 3].map((n) => `${DS}@${snap(n)}`)]);
    expect((await a.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint', DS])).stdout).toBe(
      inherited ? '/jails/web\tinherited from zroot/jails\n' : `/${DS}\tlocal\n`,
    );
  },
);

test('a failure at the first rename (the original busy) leaves everything as it was', async () => {
  const { a, b } = await arrange([{ ctid: 303, name: 'sidecar', path: `/${DS}/srv/sidecar`, state: 'running' }]);
  await expect(restoreBackup(ctx(a, b, []), payload())).rejects.toThrow(`cannot unmount '/${DS}': pool or dataset is busy; undone`);
  expect(await read(a, DATA)).toBe('v4');
  expect(await isRunning(a, 'web')).toBe(true);
  expect(await names(a, `${DS}.`)).toEqual([]);
});

describe('encrypted backups', () => {
  const KEY = 'correct horse battery';
  async function encrypted() {
    const a = simulatedHost(jailHost([WEB]));
    // materialise the seeded jail (and its dataset) before setting its properties
    await a.run(['jls']);
    await a.simulator.state((s) => {
      const d = s.datasets.find((x) => x.name === DS)!;
      d.properties = { encryption: 'aes-256-gcm', keyformat: 'passphrase', keylocation: 'prompt', keystatus: 'available', [SIM_KEY_PROPERTY]: KEY };
    });
    const b = simulatedHost(targetHost());
    for (const n of [1, 2]) await backupRun(a, b, n, `v${n}`, DATA, true);
    return { a, b };
  }

  test('the key is loaded from stdin (zfs load-key -L prompt) and the restored dataset is unlocked', async () => {
    const { a, b } = await encrypted();
    await restoreBackup(ctx(a, b, []), payload({ snapshot: snap(1), encryptionKey: KEY, encryptionKeyFormat: 'passphrase' }));
    expect(await read(a, DATA)).toBe('v1');
    expect((await a.run(['zfs', 'get', '-H', '-o', 'value', 'keystatus', DS])).stdout).toBe('available\n');
  });

  test('no key, another format or a wrong key fail clearly, leaving the original in place', async () => {
    const { a, b } = await encrypted();
    await expect(restoreBackup(ctx(a, b, []), payload({ snapshot: snap(1) }))).rejects.toThrow(
      `the received ${DS}.restoring is encrypted (keyformat passphrase): give encryptionKey and encryptionKeyFormat`,
    );
    await expect(restoreBackup(ctx(a, b, []), payload({ snapshot: snap(1), encryptionKey: 'ab'.repeat(32), encryptionKeyFormat: 'hex' }))).rejects.toThrow(
      `encryptionKeyFormat hex does not match the keyformat of the received ${DS}.restoring (passphrase)`,
    );
    await expect(restoreBackup(ctx(a, b, []), payload({ snapshot: snap(1), encryptionKey: 'not the key', encryptionKeyFormat: 'passphrase' }))).rejects.toThrow(
      `Key load error: Incorrect key provided for '${DS}.restoring'.`,
    );
    expect(await read(a, DATA)).toBe('v2');
    expect(await isRunning(a, 'web')).toBe(true);
    expect(await names(a, `${DS}.`)).toEqual([]);
  });
});

describe('canmount', () => {
  const mountState = async (e: SimulatorExecutor) => (await e.run(['zfs', 'get', '-H', '-o', 'value,source', 'canmount,mounted', DS])).stdout;

  test('a canmount=noauto root that was mounted is restored noauto and mounted again', async () => {
    const { a, b } = await arrange();
    await run(a, ['zfs', 'set', 'canmount=noauto', DS]);
    expect(await mountState(a)).toBe('noauto\tlocal\nyes\t-\n');
    await restoreBackup(ctx(a, b, []), payload());
    expect(await mountState(a)).toBe('noauto\tlocal\nyes\t-\n');
    expect(await read(a, DATA)).toBe('v2');
    expect(await isRunning(a, 'web')).toBe(true);
  });

  test("the backup copy's canmount=noauto stays with the copy: the restored dataset has the default", async () => {
    const a = simulatedHost(jailHost([WEB]));
    const b = simulatedHost(targetHost());
    await write(a, DATA, 'v1');
    await run(a, ['zfs', 'snapshot', '-r', `${DS}@${snap(1)}`]);
    // received as backup runs receive (agent/drivers/zfs/backup-stream.ts)
    const r = await runPiped(a, ['zfs', 'send', '-R', `${DS}@${snap(1)}`], b, recvArgv(BACKUP));
    expect(r.target.code).toBe(0);
    expect((await b.run(['zfs', 'get', '-H', '-o', 'value,source', 'canmount', BACKUP])).stdout).toBe('noauto\tlocal\n');
    await restoreBackup(ctx(a, b, []), payload({ snapshot: snap(1) }));
    expect(await mountState(a)).toBe('on\tdefault\nyes\t-\n');
    expect(await read(a, DATA)).toBe('v1');
  });
});

test("on a pool imported with an altroot, the original's mountpoint is written back without the altroot zfs get shows", async () => {
  // a rescue session: zroot imported with -R /mnt; zfs get shows /mnt in front of every mountpoint path
  const seed = jailHost();
  seed.pools[0].properties = { ...seed.pools[0].properties, altroot: '/mnt' };
  seed.datasets.push({ name: DS, type: 'filesystem', usedBytes: 2 ** 20, mountpoint: '/srv/web' });
  const a = simulatedHost(seed);
  const b = simulatedHost(targetHost());
  expect((await a.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint', DS])).stdout).toBe('/mnt/srv/web\tlocal\n');
  for (const n of [1, 2]) await backupRun(a, b, n, `v${n}`, '/mnt/srv/web/data.txt');
  await restoreBackup(ctx(a, b, []), payload({ guest: null, snapshot: snap(1) }));
  // stored as it was (openzfs libzfs_dataset.c zfs_prop_get adds the altroot only when showing it)
  expect(await a.simulator.state((s) => s.datasets.find((d) => d.name === DS)!.mountpoint)).toBe('/srv/web');
  expect((await a.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint', DS])).stdout).toBe('/mnt/srv/web\tlocal\n');
  expect(await read(a, '/mnt/srv/web/data.txt')).toBe('v1');
});
