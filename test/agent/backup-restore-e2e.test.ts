// @tier e2e
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { hostKeyFile, startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent, admitAsMember } from '../helpers/agent.ts';
import { peerViaSshd, simulatorPrefix, startSshd, type Sshd } from './sshd-server.ts';
import { HostSimulator } from '#simulator/simulator';
import { SimulatorExecutor } from '#simulator/executor';
import { findSimJail } from '#simulator/commands/jail-model';
import { readFile, writeFile } from '#simulator/file-tree';
import { SshExecutor } from '#agent/executors/ssh';
import { runPiped } from '#agent/executors/pipe';
import { freeGuestId } from '../http/jail-setup.ts';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * E15 end to end: HTTP → store → queue → the runner's agent process → its simulated host, pulling the job's
 * snapshot from the target node's host over a real sshd (pinned to the key the target registered). The job's
 * snapshots are made as the backup runs make them: zfs snapshot -r on the runner, zfs send | ssh zfs recv on
 * the target.
 */
jest.setTimeout(90_000);
const T = uid();

let sshd: Sshd;
let runner: TestAgent;
let target: TestAgent;
let toTarget: SshExecutor;
let operator: string;
const ids = { app: 0, db: 0, squatter: 0, web: 0 };

const sim = (agent: TestAgent) => new HostSimulator({ statePath: agent.statePath });
const jailOn = (agent: TestAgent, name: string) => sim(agent).state((s) => findSimJail(s, name));
const readOn = (agent: TestAgent, path: string) => sim(agent).state((s) => readFile(s, path));
const datasetsOf = (agent: TestAgent, prefix: string) => sim(agent).state((s) => s.datasets.map((d) => d.name).filter((n) => n.startsWith(prefix)));
const snap = (job: number, n: number) => `hm-backup-${job}-2026030${n}T120000Z`;

/** A backup job of a jail, runner → target node (as the backup runs store it). */
async function job(ctid: number, name: string): Promise<number> {
  const row = await testDb()
    .insertInto('backup_jobs')
    .values({
      name: `e2e-${T}-${name}`,
      node_id: runner.nodeId,
      mode: 'incremental',
      schedule: '',
      enabled: true,
      source_dataset: '',
      target_endpoint: `target:zroot/backups/${name}`,
      guest_type: 'jail',
      guest_id: ctid,
      target_node_id: target.nodeId,
      target_dataset: `zroot/backups/${name}`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** One backup run: data written, zfs snapshot -r on the runner, (incremental) zfs send piped over SSH into zfs recv on the target. */
async function backupRun(jobId: number, name: string, n: number, content: string, dir = `/zroot/jails/${name}`) {
  const ds = `zroot/jails/${name}`;
  const here = new SimulatorExecutor({ statePath: runner.statePath });
  await here.simulator.state((s) => void writeFile(s, `${dir}/srv/data.txt`, content, '644', true));
  const r = await here.run(['zfs', 'snapshot', '-r', `${ds}@${snap(jobId, n)}`]);
  expect(r.stderr).toBe('');
  const send = ['zfs', 'send', '-R', ...(n > 1 ? ['-i', `@${snap(jobId, n - 1)}`] : []), `${ds}@${snap(jobId, n)}`];
  const piped = await runPiped(here, send, toTarget, ['zfs', 'recv', '-F', '-u', `zroot/backups/${name}`]);
  expect([piped.source.code, piped.target.code, piped.target.stderr]).toEqual([0, 0, '']);
}

beforeAll(async () => {
  sshd = await startSshd();
  operator = await tokenFor('operator');
  ids.app = await freeGuestId();
  ids.db = await freeGuestId();
  ids.squatter = await freeGuestId();
  ids.web = await freeGuestId();
  const targetHost: SimHost = testJailHost([], hostKeyFile(readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8')));
  targetHost.datasets.push({ name: 'zroot/backups', type: 'filesystem', usedBytes: 2 ** 20, mountpoint: '/zroot/backups' });
  target = await startTestAgent({ host: targetHost, args: ['--node-ip', '127.0.0.1'] });
  const prefix = simulatorPrefix(target.statePath);
  const runnerHost = testJailHost([
    { ctid: ids.app, name: 'app', dataset: 'zroot/jails/app', state: 'running', hooks: { poststop: { enabled: true, script: 'logger app down' } } },
    { ctid: ids.db, name: 'db', dataset: 'zroot/jails/db', state: 'running' },
  ]);
  // a jail (without a dataset of its own) rooted inside db's dataset keeps it busy once db is stopped: its swap cannot start
  runnerHost.jails!.push({ ctid: ids.squatter, name: 'squatter', path: '/zroot/jails/db/srv/squatter', state: 'running' });
  // web's dataset inherits its mountpoint: zroot/jails is mounted at /jails, so web is at /jails/web
  runnerHost.datasets.find((d) => d.name === 'zroot/jails')!.mountpoint = '/jails';
  runnerHost.datasets.push({ name: 'zroot/jails/web', type: 'filesystem', usedBytes: 2 ** 20 });
  runnerHost.jails!.push({ ctid: ids.web, name: 'web', dataset: 'zroot/jails/web', state: 'running' });
  runner = await startTestAgent({
    host: runnerHost,
    args: ['--node-ip', '127.0.0.1', ...peerViaSshd(sshd, target.statePath)],
  });
  toTarget = new SshExecutor({
    host: '127.0.0.1',
    port: sshd.port,
    username: sshd.username,
    privateKey: sshd.privateKey,
    hostKeySha256: sshd.hostKeySha256,
    prefix,
  });
  await Promise.all([runner.ready(), target.ready()]);
  await Promise.all([admitAsMember(runner), admitAsMember(target)]);
  await waitUntil('the jails projected', () => testDb().selectFrom('guests').select('id').where('id', '=', ids.db).executeTakeFirst());
}, 90_000);

afterAll(async () => {
  await toTarget?.close();
  await runner?.kill();
  await target?.kill();
  await sshd?.stop();
});

test("E15: the jail's dataset is restored from the second snapshot while the jail runs: stopped, swapped, restarted, that snapshot's data present", async () => {
  const jobId = await job(ids.app, 'app');
  for (const n of [1, 2, 3]) await backupRun(jobId, 'app', n, `app v${n}`);
  await sim(runner).state((s) => void writeFile(s, '/zroot/jails/app/srv/data.txt', 'app live', '644', true));
  const stopsBefore = ((await jailOn(runner, 'app'))!.hookRuns ?? []).filter((r) => r.phase === 'poststop').length;

  const res = await call('POST', `/cluster/backups/jobs/${jobId}/restore`, { token: operator, body: { snapshot: `@${snap(jobId, 2)}` } });
  expectEnvelope(res, 202, 'backup_restore_queued');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed', 'interrupted'], 45_000);
  expect(task.error).toBe('');
  expect(task.status).toBe('success');
  expect(task.result).toMatchObject({
    jobId,
    dataset: 'zroot/jails/app',
    snapshot: snap(jobId, 2),
    from: 'target',
    guest: { type: 'jail', id: ids.app, state: 'running' },
    warnings: [],
  });
  expect(task.output).toContain(`receiving zroot/backups/app@${snap(jobId, 2)} from the target into zroot/jails/app.restoring`);
  expect(task.output).toContain(`stopping jail ${ids.app}`);

  // the host: the second snapshot's data, the jail stopped once (its poststop hook ran) and running again
  expect(await readOn(runner, '/zroot/jails/app/srv/data.txt')).toBe('app v2');
  const app = (await jailOn(runner, 'app'))!;
  expect(app.state).toBe('running');
  expect((app.hookRuns ?? []).filter((r) => r.phase === 'poststop').length).toBe(stopsBefore + 1);
  expect(await datasetsOf(runner, 'zroot/jails/app')).toEqual(['zroot/jails/app', `zroot/jails/app@${snap(jobId, 1)}`, `zroot/jails/app@${snap(jobId, 2)}`]);
  // the store: the restore event followed the task
  const event = await testDb().selectFrom('backup_events').selectAll().where('id', '=', res.body.data.eventId).executeTakeFirstOrThrow();
  expect(event).toMatchObject({ mode: 'restore', status: 'success', task_id: task.id, error: '', output: `restored snapshot ${snap(jobId, 2)}` });
  expect(event.started_at).not.toBeNull();
  expect(event.completed_at).not.toBeNull();
});

test('E15: a failure mid-restore (the swap refused) leaves the original dataset and its data in place, the jail running, the task and event failed', async () => {
  const jobId = await job(ids.db, 'db');
  for (const n of [1, 2]) await backupRun(jobId, 'db', n, `db v${n}`);
  await sim(runner).state((s) => void writeFile(s, '/zroot/jails/db/srv/data.txt', 'db live', '644', true));

  const res = await call('POST', `/cluster/backups/jobs/${jobId}/restore`, { token: operator, body: {} });
  expectEnvelope(res, 202, 'backup_restore_queued');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed', 'interrupted'], 45_000);
  expect(task.status).toBe('failed');
  expect(task.error).toBe("cannot unmount '/zroot/jails/db': pool or dataset is busy; undone: zroot/jails/db is the original and the guest runs again");
  // the newest job snapshot was chosen on the host, and said so
  expect(task.output).toContain(`no snapshot given: restoring the job's newest, ${snap(jobId, 2)}`);

  expect(await readOn(runner, '/zroot/jails/db/srv/data.txt')).toBe('db live');
  expect((await jailOn(runner, 'db'))!.state).toBe('running');
  expect(await datasetsOf(runner, 'zroot/jails/db')).toEqual(['zroot/jails/db', `zroot/jails/db@${snap(jobId, 1)}`, `zroot/jails/db@${snap(jobId, 2)}`]);
  const event = await testDb().selectFrom('backup_events').selectAll().where('id', '=', res.body.data.eventId).executeTakeFirstOrThrow();
  expect(event).toMatchObject({ mode: 'restore', status: 'failed', error: task.error });
  // the job is free again: another restore is accepted
  const again = await call('POST', `/cluster/backups/jobs/${jobId}/restore`, { token: operator, body: { snapshot: snap(jobId, 1) } });
  expectEnvelope(again, 202);
  // (the squatter still holds db's dataset: that one fails the same way, again undone)
  expect(await waitForTask(again.body.data.taskId, ['success', 'failed', 'interrupted'], 45_000)).toMatchObject({ status: 'failed', error: task.error });
});

test("E15 with an inherited mountpoint: the restored dataset, received unmounted, is mounted at the jail's path before the jail starts again", async () => {
  const jobId = await job(ids.web, 'web');
  for (const n of [1, 2]) await backupRun(jobId, 'web', n, `web v${n}`, '/jails/web');
  await sim(runner).state((s) => void writeFile(s, '/jails/web/srv/data.txt', 'web live', '644', true));

  const res = await call('POST', `/cluster/backups/jobs/${jobId}/restore`, { token: operator, body: { snapshot: snap(jobId, 1) } });
  expectEnvelope(res, 202, 'backup_restore_queued');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed', 'interrupted'], 45_000);
  expect(task.error).toBe('');
  expect(task.status).toBe('success');
  expect(task.result).toMatchObject({
    dataset: 'zroot/jails/web',
    snapshot: snap(jobId, 1),
    guest: { type: 'jail', id: ids.web, state: 'running' },
    warnings: [],
  });

  // the first snapshot's data at the jail's path, the dataset mounted there, the jail running on it
  expect(await readOn(runner, '/jails/web/srv/data.txt')).toBe('web v1');
  const web = (await jailOn(runner, 'web'))!;
  expect({ state: web.state, path: web.path }).toEqual({ state: 'running', path: '/jails/web' });
  const here = new SimulatorExecutor({ statePath: runner.statePath });
  expect((await here.run(['zfs', 'get', '-H', '-o', 'value,source', 'mountpoint,mounted', 'zroot/jails/web'])).stdout).toBe(
    '/jails/web\tinherited from zroot/jails\nyes\t-\n',
  );
  expect(await datasetsOf(runner, 'zroot/jails/web')).toEqual(['zroot/jails/web', `zroot/jails/web@${snap(jobId, 1)}`]);
});
