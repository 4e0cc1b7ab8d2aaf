// @tier fast
import type { SimulatorExecutor } from '#simulator/executor';
import { jailHost, simulatedHost } from '../helpers/simulated-host.ts';
import type { JobContext } from '#agent/jobs/job';
import { migrateJail, rollBack, finishCommitted } from '#agent/jobs/jail-migrate';
import { listJournals, writeJournal, type MigrationJournal } from '#agent/jobs/jail-migration-journal';
import { findJail, isRunning, jailInventory, stopJail } from '#agent/drivers/jail';
import { mountpointPath, sendTo, snapshot } from '#agent/drivers/zfs/replication';
import { findSimJail } from '#simulator/commands/jail-model';
import { SIM_KEY_PROPERTY } from '#simulator/commands/zfs-load-key';
import { writeFile } from '#simulator/file-tree';

/**
 * The migration's host work between two simulated hosts, in-process (the SSH leg is covered by
 * test/agent/jail-e2e.test.ts): the happy path, failures undone, and journals of cut-off migrations resolved.
 */
const WEB = {
  ctid: 301,
  name: 'web',
  dataset: 'zroot/jails/web',
  state: 'running' as const,
  hooks: { prestart: { enabled: true, script: 'echo pre' }, start: { enabled: true, script: 'echo in-jail' } },
  cpuSet: [2],
};

function pair() {
  return { a: simulatedHost(jailHost([WEB])), b: simulatedHost(jailHost()) };
}

function ctx(a: SimulatorExecutor, b: SimulatorExecutor, phases: string[]): JobContext {
  return {
    exec: a,
    task: { id: 77, kind: 'jail.migrate', resource: 'jail:301', nodeId: 'node-a', attempt: 1 },
    peer: () => b,
    progress: async (phase) => void phases.push(phase),
    signal: new AbortController().signal,
  };
}

const payload = { ctid: 301, name: 'web', dataset: 'zroot/jails/web', target: { nodeId: 'node-b', address: '127.0.0.1', hostKeys: [] } };
const datasets = (e: SimulatorExecutor) => e.simulator.state((s) => s.datasets.map((d) => d.name).filter((x) => x.startsWith('zroot/jails/')));

test('replicates, stops, sends the increment, starts on the target and removes the jail here', async () => {
  const { a, b } = pair();
  const phases: string[] = [];
  const result = await migrateJail(ctx(a, b, phases), payload);
  expect(result).toEqual({ ctid: 301, targetNodeId: 'node-b', state: 'running', warnings: [] });
  expect(phases).toEqual(
    expect.arrayContaining([
      'preparing',
      'initial full send',
      'stopping the jail',
      'final incremental send',
      'copying the jail configuration',
      'starting on the target',
      'removing the jail here',
    ]),
  );
  expect(phases.indexOf('stopping the jail')).toBeGreaterThan(phases.indexOf('initial full send'));

  // target: dataset without our snapshots, the conf and hooks, running, pinned by its post-start limits
  expect(await datasets(b)).toEqual(['zroot/jails/web']);
  const inv = await jailInventory(b);
  expect(inv).toEqual([expect.objectContaining({ ctid: 301, name: 'web', state: 'running', dataset: 'zroot/jails/web', cpuSet: [2] })]);
  expect(inv[0].hooks.prestart).toEqual({ enabled: true, script: 'echo pre' });
  expect(inv[0].hooks.start).toEqual({ enabled: true, script: 'echo in-jail' });
  expect(await b.simulator.state((s) => findSimJail(s, 'web')!.affinity)).toEqual([2]);
  // the start hook (a host file) came with the jail's configuration and ran in the jail through jexec
  expect(await b.simulator.state((s) => findSimJail(s, 'web')!.hookRuns!.map((r) => r.command))).toContain(
    '/bin/sh -c /usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/301/hooks/start.sh',
  );

  // source: nothing left, nothing running
  expect(await jailInventory(a)).toEqual([]);
  expect(await isRunning(a, 'web')).toBe(false);
  expect(await datasets(a)).toEqual([]);
  expect(await listJournals(a)).toEqual([]);
});

test('a failure before the jail runs on the target is undone: it keeps running here, the target keeps nothing', async () => {
  const { a, b } = pair();
  // the target cannot take the final increment: its copy is gone by then
  await b.simulator.state((s) => s.datasets.push({ name: 'zroot/jails/other', type: 'filesystem', usedBytes: 1 }));
  const phases: string[] = [];
  const c = ctx(a, b, phases);
  const progress = c.progress;
  c.progress = async (phase, pct) => {
    if (phase === 'final incremental send') await b.run(['zfs', 'destroy', '-r', 'zroot/jails/web']);
    return progress(phase, pct);
  };
  await expect(migrateJail(c, payload)).rejects.toThrow(/cannot receive incremental stream.*undone: the jail stays on this node/s);
  expect(await isRunning(a, 'web')).toBe(true);
  expect((await jailInventory(a)).map((j) => j.ctid)).toEqual([301]);
  expect(await datasets(a)).toEqual(['zroot/jails/web']);
  expect(await datasets(b)).toEqual(['zroot/jails/other']);
  expect(await jailInventory(b)).toEqual([]);
  expect(await listJournals(a)).toEqual([]);
});

test('refuses a target that already has the dataset, touching nothing there', async () => {
  const { a, b } = pair();
  await b.simulator.state((s) => s.datasets.push({ name: 'zroot/jails/web', type: 'filesystem', usedBytes: 5 }));
  await expect(migrateJail(ctx(a, b, []), payload)).rejects.toThrow(/already has a dataset zroot\/jails\/web/);
  expect(await datasets(b)).toEqual(['zroot/jails/web']);
  expect(await isRunning(a, 'web')).toBe(true);
  expect(await a.simulator.state((s) => s.datasets.filter((d) => d.type === 'snapshot').length)).toBe(0);
});

async function cutOffAfterStop(a: SimulatorExecutor, b: SimulatorExecutor, phase: MigrationJournal['phase']): Promise<MigrationJournal> {
  // what a crashed agent leaves: copy on the target, jail stopped here, journal at `phase`
  const j = await findJail(a, 301);
  await snapshot(a, 'zroot/jails/web@hm-migrate-9-1');
  await sendTo(a, b, { dataset: 'zroot/jails/web', snap: 'hm-migrate-9-1', from: null, encryption: null });
  await stopJail(a, 'web', j.files.conf);
  const journal: MigrationJournal = {
    taskId: 9,
    attempt: 1,
    ctid: 301,
    name: 'web',
    dataset: 'zroot/jails/web',
    target: { nodeId: 'node-b', address: '127.0.0.1' },
    wasRunning: true,
    phase,
    snapshots: ['hm-migrate-9-1'],
    targetFiles: [j.files.conf],
    sourceFiles: { conf: j.files.conf, dir: j.files.dir },
  };
  await writeJournal(a, journal);
  return journal;
}

test('a migration cut off after the jail stopped here is undone: running here again, nothing on the target', async () => {
  const { a, b } = pair();
  const journal = await cutOffAfterStop(a, b, 'final-send');
  expect(await isRunning(a, 'web')).toBe(false);
  expect(await rollBack(a, b, journal)).toEqual([]);
  expect(await isRunning(a, 'web')).toBe(true);
  expect(await datasets(b)).toEqual([]);
  expect(await a.simulator.state((s) => s.datasets.filter((d) => d.type === 'snapshot').length)).toBe(0);
  expect(await listJournals(a)).toEqual([]);
});

test('a committed migration cut off before its clean-up is finished: removed here, kept there', async () => {
  const { a, b } = pair();
  const journal = await cutOffAfterStop(a, b, 'committed');
  expect(await finishCommitted(a, b, journal)).toEqual([]);
  expect(await jailInventory(a)).toEqual([]);
  expect(await datasets(a)).toEqual([]);
  expect(await datasets(b)).toEqual(['zroot/jails/web']);
  expect(await listJournals(a)).toEqual([]);
});

describe('the copy on the target is where the jail expects it', () => {
  const mountState = async (e: SimulatorExecutor) =>
    (await e.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint,canmount,mounted', 'zroot/jails/web'])).stdout;

  test('refuses a target without the parent dataset in prepare, naming it; nothing is sent', async () => {
    const a = simulatedHost(jailHost([WEB]));
    const seed = jailHost();
    seed.datasets = seed.datasets.filter((d) => d.name !== 'zroot/jails');
    const b = simulatedHost(seed);
    await expect(migrateJail(ctx(a, b, []), payload)).rejects.toThrow(
      /the target has no dataset zroot\/jails to receive zroot\/jails\/web into: create it there first; undone/,
    );
    expect(await isRunning(a, 'web')).toBe(true);
    expect(await a.simulator.state((s) => s.datasets.filter((d) => d.type === 'snapshot').length)).toBe(0);
    expect(await b.simulator.state((s) => s.datasets.map((d) => d.name))).toEqual(['zroot']);
  });

  test("an inherited mountpoint: the copy is mounted at the source's path, not where the target's parent would put it", async () => {
    const seed = jailHost([WEB]);
    seed.datasets[1].mountpoint = '/jails';
    seed.datasets.push({ name: 'zroot/jails/web', type: 'filesystem', usedBytes: 2 ** 20 });
    const a = simulatedHost(seed);
    const b = simulatedHost(jailHost());
    await migrateJail(ctx(a, b, []), payload);
    expect(await mountState(b)).toBe('/jails/web\tlocal\non\tdefault\nyes\t-\n');
    // the start hook ran: the jail started on the target from the copy
    expect(await b.simulator.state((s) => findSimJail(s, 'web')!.hookRuns!.map((r) => r.command))).toContainEqual(
      expect.stringMatching(/jexec -l web \/bin\/sh < \S+\/hooks\/start\.sh$/),
    );
  });

  test('a canmount=noauto jail root is mounted on the target before the jail starts', async () => {
    const a = simulatedHost(jailHost([WEB]));
    await a.run(['jls']);
    expect((await a.run(['zfs', 'set', 'canmount=noauto', 'zroot/jails/web'])).code).toBe(0);
    const b = simulatedHost(jailHost());
    await migrateJail(ctx(a, b, []), payload);
    expect(await mountState(b)).toBe('/zroot/jails/web\tlocal\nnoauto\tlocal\nyes\t-\n');
    expect(await isRunning(b, 'web')).toBe(true);
  });

  test('an encrypted jail travels raw and is unlocked on the target from its file:// key; a prompt key is refused in prepare', async () => {
    const a = simulatedHost(jailHost([WEB]));
    await a.run(['jls']);
    const keyed = (location: string) =>
      a.simulator.state((s) => {
        s.datasets.find((d) => d.name === 'zroot/jails/web')!.properties = {
          encryption: 'aes-256-gcm',
          keyformat: 'passphrase',
          keylocation: location,
          keystatus: 'available',
          [SIM_KEY_PROPERTY]: 'jail passphrase',
        };
      });
    const b = simulatedHost(jailHost());
    await keyed('prompt');
    await expect(migrateJail(ctx(a, b, []), payload)).rejects.toThrow(
      /zroot\/jails\/web is encrypted \(encryption root zroot\/jails\/web, keylocation prompt\): the target could not unlock it/,
    );
    expect(await isRunning(a, 'web')).toBe(true);

    await keyed('file:///etc/hostmgr/web.key');
    await b.simulator.state((s) => void writeFile(s, '/etc/hostmgr/web.key', 'jail passphrase\n', '600', true));
    await migrateJail(ctx(a, b, []), payload);
    expect((await b.run(['zfs', 'get', '-H', '-o', 'value', 'encryption,keylocation,keystatus,mounted', 'zroot/jails/web'])).stdout).toBe(
      'aes-256-gcm\nfile:///etc/hostmgr/web.key\navailable\nyes\n',
    );
    expect(await isRunning(b, 'web')).toBe(true);
  });
});

test("the migrated copy's mountpoint is the source's without its pool's altroot (zfs get shows it under the altroot)", async () => {
  const seed = jailHost();
  seed.pools[0].properties = { ...seed.pools[0].properties, altroot: '/mnt' };
  seed.datasets.push({ name: 'zroot/jails/web', type: 'filesystem', usedBytes: 2 ** 20, mountpoint: '/jails/web' });
  const a = simulatedHost(seed);
  expect((await a.run(['zfs', 'get', '-H', '-o', 'value', 'mountpoint', 'zroot/jails/web'])).stdout).toBe('/mnt/jails/web\n');
  // what the migration sets on the target (replication.ts mountpointPath)
  expect(await mountpointPath(a, 'zroot/jails/web', '/fallback')).toBe('/jails/web');
  expect(await mountpointPath(a, 'zroot/jails', '/fallback')).toBe('/zroot/jails');
  const b = simulatedHost(jailHost());
  expect(await mountpointPath(b, 'zroot/jails', '/fallback')).toBe('/zroot/jails');
});
