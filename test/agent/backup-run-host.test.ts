// @tier fast
import type { SimulatorExecutor } from '#simulator/executor';
import { jailHost, simulatedHost } from '../helpers/simulated-host.ts';
import type { JobContext } from '#agent/jobs/job';
import { backupRun } from '#agent/jobs/backup-run';
import { runPiped } from '#agent/executors/pipe';
import { readFile, writeFile } from '#simulator/file-tree';
import { SIM_KEY_PROPERTY } from '#simulator/commands/zfs-load-key';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * E11's host work between a runner and a backup host, both simulated, in-process, across a reboot of the backup
 * host. The copy of a jail's dataset must never be mounted there: `zfs recv -u` alone leaves the source's local
 * mountpoint and canmount=on on the copy, so the backup host's next boot (`zfs mount -a`) mounts it over the
 * backup host's own directory at that path (OpenZFS overlays by default), anything written there lands in the
 * copy, and every later incremental fails with "destination … has been modified since most recent snapshot".
 */
const JOB = 7;
const DS = 'zroot/jails/web';
const LIVE = '/usr/local/jails/web';
const COPY = 'zroot/backups/web';

function runnerHost(): SimHost {
  const h = jailHost();
  h.datasets.push({ name: DS, type: 'filesystem', usedBytes: 2 ** 20, referencedBytes: 2 ** 20, mountpoint: LIVE });
  return h;
}

/** The backup host runs its own jail at the same path (its own dataset, its own files). */
function backupHost(): SimHost {
  const h = jailHost();
  h.datasets.push(
    { name: 'zroot/backups', type: 'filesystem', usedBytes: 2 ** 10, mountpoint: '/zroot/backups' },
    { name: 'zroot/local-web', type: 'filesystem', usedBytes: 2 ** 10, mountpoint: LIVE },
  );
  return h;
}

const write = (e: SimulatorExecutor, path: string, content: string) => e.simulator.state((s) => void writeFile(s, path, content, '644', true));
const read = (e: SimulatorExecutor, path: string) => e.simulator.state((s) => readFile(s, path));
const get = async (e: SimulatorExecutor, props: string, ds: string) => (await e.run(['zfs', 'get', '-H', '-o', 'value', props, ds])).stdout;

function ctx(a: SimulatorExecutor, b: SimulatorExecutor): JobContext {
  return {
    exec: a,
    task: { id: 55, kind: 'backup.run', resource: `backup-job:${JOB}`, nodeId: 'node-a', attempt: 1 },
    peer: (id) => {
      if (id !== 'node-b') throw new Error(`unexpected peer ${id}`);
      return b;
    },
    progress: async () => undefined,
    signal: new AbortController().signal,
  };
}

const payload = { jobId: JOB, source: DS, retention: 5, target: { kind: 'node' as const, nodeId: 'node-b', dataset: COPY, label: `node-b:${COPY}` } };

// snapshot names carry the UTC second: each run a minute after the one before
let clock = Date.UTC(2026, 0, 1, 3, 0, 0);
beforeEach(() =>
  jest.useFakeTimers({
    now: clock,
    doNotFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'nextTick', 'queueMicrotask'],
  }),
);
afterEach(() => jest.useRealTimers());
const nextRun = () => jest.setSystemTime((clock += 60_000));

/** What the backup host does after its reboot: its own jail writes a log under its path. */
async function rebootAndWrite(b: SimulatorExecutor) {
  expect((await b.run(['reboot'])).code).toBe(0);
  await write(b, `${LIVE}/var/log/messages`, "the backup host's own jail logging");
}

test("today's receive (zfs recv -u -v) reproduced: after the backup host's reboot the copy covers its path, and the next incremental fails", async () => {
  const a = simulatedHost(runnerHost());
  const b = simulatedHost(backupHost());
  await write(b, `${LIVE}/etc/motd`, 'backup host');
  const send = async (argv: string[]) => runPiped(a, argv, b, ['zfs', 'recv', '-u', '-v', COPY]);
  await write(a, `${LIVE}/etc/motd`, 'v1');
  expect((await a.run(['zfs', 'snapshot', '-r', `${DS}@s1`])).code).toBe(0);
  expect((await send(['zfs', 'send', '-R', `${DS}@s1`])).target.code).toBe(0);
  await rebootAndWrite(b);
  // the copy is mounted over the backup host's own directory, hiding its files
  expect(await get(b, 'mountpoint,canmount,mounted', COPY)).toBe(`${LIVE}\non\nyes\n`);
  expect(await read(b, `${LIVE}/etc/motd`)).toBe('v1');
  expect((await a.run(['zfs', 'snapshot', '-r', `${DS}@s2`])).code).toBe(0);
  const r = await send(['zfs', 'send', '-R', '-I', '@s1', `${DS}@s2`]);
  expect(r.target).toMatchObject({ code: 1, stderr: `cannot receive incremental stream: destination ${COPY} has been modified\nsince most recent snapshot\n` });
});

test("backup runs keep the copy unmounted across the backup host's reboot: the next incremental applies, the host's own files stay in place", async () => {
  const a = simulatedHost(runnerHost());
  const b = simulatedHost(backupHost());
  await write(b, `${LIVE}/etc/motd`, 'backup host');
  await write(a, `${LIVE}/etc/motd`, 'v1');
  expect(await backupRun(ctx(a, b), payload)).toMatchObject({ mode: 'full' });
  expect(await get(b, 'mountpoint,canmount,mounted', COPY)).toBe('/zroot/backups/web\nnoauto\nno\n');

  await rebootAndWrite(b);
  expect(await get(b, 'mounted', COPY)).toBe('no\n');
  expect(await read(b, `${LIVE}/etc/motd`)).toBe('backup host');

  nextRun();
  await write(a, `${LIVE}/etc/motd`, 'v2');
  expect(await backupRun(ctx(a, b), payload)).toMatchObject({ mode: 'incremental' });
  await rebootAndWrite(b);
  nextRun();
  await write(a, `${LIVE}/etc/motd`, 'v3');
  expect(await backupRun(ctx(a, b), payload)).toMatchObject({ mode: 'incremental' });
  // the copy holds the runner's data, the backup host its own
  expect((await b.run(['zfs', 'mount', COPY])).code).toBe(0);
  expect(await read(b, '/zroot/backups/web/etc/motd')).toBe('v3');
  expect(await read(b, `${LIVE}/etc/motd`)).toBe('backup host');
});

test('an encrypted source is sent raw: the copy arrives encrypted and locked, incrementals apply', async () => {
  const a = simulatedHost(runnerHost());
  const b = simulatedHost(backupHost());
  await a.simulator.state((s) => {
    s.datasets.find((d) => d.name === DS)!.properties = {
      encryption: 'aes-256-gcm',
      keyformat: 'passphrase',
      keylocation: 'prompt',
      keystatus: 'available',
      [SIM_KEY_PROPERTY]: 'correct horse battery',
    };
  });
  await write(a, `${LIVE}/etc/motd`, 'v1');
  expect(await backupRun(ctx(a, b), payload)).toMatchObject({ mode: 'full' });
  expect(await get(b, 'encryption,keystatus', COPY)).toBe('aes-256-gcm\nunavailable\n');
  nextRun();
  expect(await backupRun(ctx(a, b), payload)).toMatchObject({ mode: 'incremental' });
});
