// @tier e2e
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { getTaskRow, hostKeyFile, startTestAgent, testHost, waitForTask, waitUntil, type TestAgent, admitAsMember } from '../helpers/agent.ts';
import { peerViaSshd, startSshd, type Sshd } from './sshd-server.ts';
import { HostSimulator } from '#simulator/simulator';
import { scheduleDueRuns } from '#domain/backups/scheduler';
import { hostKeyFingerprint } from '#domain/backups/rules';
import { readFile, writeFile } from '#simulator/file-tree';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * Backup jobs end to end: HTTP → store → queue → the runner's agent process → its simulated host, the stream
 * carried by a real sshd on 127.0.0.1 into the simulator CLI of the target node's host (pinned host key), the
 * events read through E12. Three runs (full, incremental, incremental after a retention prune), one of them
 * queued by the scheduler; then a run cut off by kill -9 ends `interrupted` and the next one succeeds
 * incrementally from the newest common snapshot.
 */
const MiB = 2 ** 20;

let sshd: Sshd;
let runner: TestAgent;
let target: TestAgent;
let operator: string;

const sim = (agent: TestAgent) => new HostSimulator({ statePath: agent.statePath });
const snapshotsOf = (agent: TestAgent, ds: string) =>
  sim(agent).state((s) => s.datasets.filter((d) => d.name.startsWith(`${ds}@`)).map((d) => d.name.slice(ds.length + 1)));

/** A host with pool zroot, a small dataset (with a child) and a big one (1 GiB: its simulated send is slow). */
const host = (files?: SimHost['files']): SimHost =>
  testHost({
    ...(files ? { files } : {}),
    pools: [{ name: 'zroot', vdevs: [{ type: 'disk', name: 'ada0' }], allocatedBytes: 40 * 2 ** 30 }],
    datasets: [
      { name: 'zroot', type: 'filesystem', usedBytes: 40 * 2 ** 30, mountpoint: 'none' },
      { name: 'zroot/data', type: 'filesystem', usedBytes: 200 * 1024, referencedBytes: 100 * 1024, mountpoint: '/zroot/data' },
      { name: 'zroot/data/logs', type: 'filesystem', usedBytes: 100 * 1024, mountpoint: '/zroot/data/logs' },
      { name: 'zroot/big', type: 'filesystem', usedBytes: 2 ** 30, referencedBytes: 2 ** 30, mountpoint: '/zroot/big' },
      { name: 'zroot/backups', type: 'filesystem', usedBytes: 4096, mountpoint: 'none' },
    ],
  });

beforeAll(async () => {
  sshd = await startSshd();
  operator = await tokenFor('operator');
  // the target's registered host key is the one sshd presents: what the runner pins when it connects
  target = await startTestAgent({ host: host(hostKeyFile(readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8'))), args: ['--node-ip', '127.0.0.1'] });
  runner = await startTestAgent(runnerOptions());
  await Promise.all([runner.ready(), target.ready()]);
  await Promise.all([admitAsMember(runner), admitAsMember(target)]);
}, 90_000);

function runnerOptions() {
  return {
    host: host(),
    // the target "host" behind sshd: every command runs through the simulator CLI on the target's state file
    args: ['--node-ip', '127.0.0.1', ...peerViaSshd(sshd, target.statePath)],
    // zroot/big's simulated stream: 16 MiB (full) or ~10 MiB (incremental) at 2 MiB/s, long enough to cut off
    env: { HM_SIM_SEND_MAX_BYTES: String(16 * MiB), HM_SIM_STREAM_BYTES_PER_S: String(2 * MiB) },
  };
}

afterAll(async () => {
  await Promise.all([runner?.kill(), target?.kill()]);
  await sshd?.stop();
});

async function createJob(source: string, dest: string, retention: number) {
  const res = await call('POST', '/cluster/backups/jobs', {
    token: operator,
    body: {
      name: `backup of ${source}`,
      nodeId: runner.nodeId,
      source: { dataset: source },
      target: { nodeId: target.nodeId, dataset: dest },
      schedule: '0 3 * * *',
      retention,
    },
  });
  expectEnvelope(res, 201, 'backup_job_created');
  return res.body.data as { id: number; nextRunAt: string; targetEndpoint: string };
}

async function runNow(jobId: number) {
  const res = await call('POST', `/cluster/backups/jobs/${jobId}/run`, { token: operator });
  expectEnvelope(res, 202, 'backup_run_queued');
  return res.body.data as { jobId: number; eventId: number; taskId: number };
}

const events = async (jobId: number) => {
  const res = await call('GET', `/cluster/backups/events/remote?jobId=${jobId}&sort[0][field]=id&sort[0][dir]=asc`, { token: operator });
  expectEnvelope(res, 200, 'backup_events_listed');
  return res.body.data.data as Array<{
    id: number;
    status: string;
    mode: string;
    output: string;
    error: string;
    sourceDataset: string;
    targetEndpoint: string;
    startedAt: string | null;
    completedAt: string | null;
  }>;
};

const taskDone = async (id: number) => {
  const t = await waitForTask(id, ['success', 'failed', 'interrupted', 'cancelled'], 60_000);
  expect({ status: t.status, error: t.error }).toEqual({ status: 'success', error: '' });
  return t;
};

test('a job runs three times across two hosts: full, incremental, incremental after a retention prune; E12 lists the events', async () => {
  // an operator's own snapshot on the source: never pruned
  await sim(runner).run(['zfs', 'snapshot', 'zroot/data@before-upgrade']);
  const job = await createJob('zroot/data', 'zroot/backups/data', 2);
  expect(job.targetEndpoint).toMatch(/:zroot\/backups\/data$/);

  const first = await runNow(job.id);
  // the event exists as soon as the run is accepted (queued, or already running: the agent may be quick)
  const queued = await events(job.id);
  expect(queued.map((e) => e.id)).toEqual([first.eventId]);
  expect(['queued', 'running']).toContain(queued[0].status);
  const t1 = await taskDone(first.taskId);
  expect(t1.result).toMatchObject({ mode: 'full', from: null });
  const snap1 = (t1.result as { snapshot: string }).snapshot;
  expect(snap1).toMatch(new RegExp(`^hm-backup-${job.id}-\\d{8}T\\d{6}Z$`));
  // the child came along (-R), received unmounted under the target dataset
  expect(await sim(target).state((s) => s.datasets.map((d) => d.name).filter((n) => n.startsWith('zroot/backups/data') && !n.includes('@')))).toEqual([
    'zroot/backups/data',
    'zroot/backups/data/logs',
  ]);

  await new Promise((r) => setTimeout(r, 1100)); // snapshot names are stamped to the second
  const second = await runNow(job.id);
  const t2 = await taskDone(second.taskId);
  expect(t2.result).toMatchObject({ mode: 'incremental', from: snap1, pruned: { source: [], target: [] } });
  const snap2 = (t2.result as { snapshot: string }).snapshot;

  // the third run is the scheduler's: the job is due, its runner online
  await new Promise((r) => setTimeout(r, 1100));
  await testDb()
    .updateTable('backup_jobs')
    .set({ next_run_at: new Date(Date.now() - 1000) })
    .where('id', '=', job.id)
    .execute();
  const runsOf = () => testDb().selectFrom('tasks').select('id').where('resource', '=', `backup-job:${job.id}`).orderBy('id').execute();
  await scheduleDueRuns(testDb());
  const runs = await runsOf();
  expect(runs).toHaveLength(3);
  // one run per due job: a second pass finds it not due (next_run_at moved to the schedule's next slot)
  await scheduleDueRuns(testDb());
  expect(await runsOf()).toHaveLength(3);
  const nextRun = (await testDb().selectFrom('backup_jobs').select('next_run_at').where('id', '=', job.id).executeTakeFirstOrThrow()).next_run_at!;
  expect(nextRun.toISOString()).toMatch(/T03:00:00\.000Z$/);
  const t3 = await taskDone(runs[2].id);
  const snap3 = (t3.result as { snapshot: string }).snapshot;
  // retention 2: the first run's snapshot is pruned on both sides; the operator's stays
  expect(t3.result).toMatchObject({ mode: 'incremental', from: snap2, pruned: { source: [snap1], target: [snap1] } });
  expect(await snapshotsOf(runner, 'zroot/data')).toEqual(['before-upgrade', snap2, snap3]);
  // the full -R stream carried the operator's snapshot too: retention leaves it alone there as well
  expect(await snapshotsOf(target, 'zroot/backups/data')).toEqual(['before-upgrade', snap2, snap3]);
  expect(await snapshotsOf(target, 'zroot/backups/data/logs')).toEqual([snap2, snap3]);

  const listed = await events(job.id);
  expect(listed.map((e) => [e.status, e.mode, e.error])).toEqual([
    ['success', 'full', ''],
    ['success', 'incremental', ''],
    ['success', 'incremental', ''],
  ]);
  for (const e of listed) {
    expect(e.sourceDataset).toBe('zroot/data');
    expect(e.targetEndpoint).toBe(job.targetEndpoint);
    expect(e.startedAt && e.completedAt && e.completedAt >= e.startedAt).toBeTruthy();
  }
  // the replication output tail: zfs recv's words and the retention
  // a replication stream (-R) carries the dataset's older snapshots too, so snap1 may arrive as an incremental
  // after them (zfs recv -v prints a line per snapshot, as real OpenZFS does)
  expect(listed[0].output).toMatch(new RegExp(`receiving (full|incremental) stream of zroot/data@${snap1} into zroot/backups/data@${snap1}`));
  expect(listed[2].output).toContain(`pruned 1 here (${snap1}), 1 on the target (${snap1})`);
  // searchable like every event: the search documents follow the status changes the runs made
  const search = await call('GET', `/cluster/backups/events/remote?jobId=${job.id}&search=SUCCESS`, { token: operator });
  expectEnvelope(search, 200);
  expect(search.body.data.data.map((e: { id: number }) => e.id).sort()).toEqual(listed.map((e) => e.id).sort());
  const none = await call('GET', `/cluster/backups/events/remote?jobId=${job.id}&search=queued`, { token: operator });
  expect(none.body.data.data).toEqual([]);
}, 180_000);

test('kill -9 mid-send: the event ends interrupted; the next run succeeds incrementally from the newest common snapshot', async () => {
  const job = await createJob('zroot/big', 'zroot/backups/big', 3);
  const first = await runNow(job.id);
  const snap1 = ((await taskDone(first.taskId)).result as { snapshot: string }).snapshot;

  await new Promise((r) => setTimeout(r, 1100));
  const cut = await runNow(job.id);
  await waitUntil(
    'the incremental send under way',
    async () => {
      const t = await getTaskRow(cut.taskId);
      return t.phase === 'incremental send' && t.progress > 5;
    },
    30_000,
    50,
  );
  expect((await events(job.id)).at(-1)!.status).toBe('running');
  await runner.kill();
  runner = await runner.restart(runnerOptions());
  await runner.ready();
  const interrupted = await waitForTask(cut.taskId, ['interrupted', 'success', 'failed'], 30_000);
  expect(interrupted.status).toBe('interrupted');
  const afterKill = await events(job.id);
  expect(afterKill.map((e) => e.status)).toEqual(['success', 'interrupted']);
  expect(afterKill[1].error).toMatch(/interrupted: the agent restarted/);
  expect(afterKill[1].completedAt).not.toBeNull();
  // the cut-off stream left nothing on the target; the run's snapshot stays on the source
  const cutSnaps = await snapshotsOf(runner, 'zroot/big');
  expect(cutSnaps).toHaveLength(2);
  expect(await snapshotsOf(target, 'zroot/backups/big')).toEqual([snap1]);

  await new Promise((r) => setTimeout(r, 1100));
  const next = await runNow(job.id);
  const t = await taskDone(next.taskId);
  const snap3 = (t.result as { snapshot: string }).snapshot;
  expect(t.result).toMatchObject({ mode: 'incremental', from: snap1 });
  // -I carried the cut-off run's snapshot along
  expect(await snapshotsOf(target, 'zroot/backups/big')).toEqual([snap1, cutSnaps[1], snap3]);
  expect((await events(job.id)).map((e) => [e.status, e.mode])).toEqual([
    ['success', 'full'],
    ['interrupted', 'incremental'],
    ['success', 'incremental'],
  ]);
}, 180_000);

test('an SSH endpoint target: the runner pins the job’s host key (the fingerprint ssh-keygen prints) and the run lands there', async () => {
  const hostKey = readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8').trim();
  expect(hostKeyFingerprint(hostKey)).toBe(sshd.hostKeySha256);
  const res = await call('POST', '/cluster/backups/jobs', {
    token: operator,
    body: {
      name: 'offsite',
      nodeId: runner.nodeId,
      source: { dataset: 'zroot/data' },
      target: { dataset: 'zroot/backups/offsite', ssh: { user: sshd.username, host: '127.0.0.1', port: sshd.port, hostKey } },
      schedule: '0 3 * * *',
      retention: 1,
    },
  });
  expectEnvelope(res, 201, 'backup_job_created');
  const t = await taskDone((await runNow(res.body.data.id)).taskId);
  const snap = (t.result as { snapshot: string }).snapshot;
  expect(t.result).toMatchObject({ mode: 'full' });
  // the host behind that endpoint (the target's simulator, via sshd) received it
  expect(await snapshotsOf(target, 'zroot/backups/offsite')).toContain(snap);
  expect((await events(res.body.data.id)).map((e) => [e.status, e.targetEndpoint])).toEqual([
    ['success', `${sshd.username}@127.0.0.1:${sshd.port}:zroot/backups/offsite`],
  ]);

  // another key pinned: the run fails naming the mismatch, nothing is sent
  const other = await call('PUT', `/cluster/backups/jobs/${res.body.data.id}`, {
    token: operator,
    body: {
      name: 'offsite',
      nodeId: runner.nodeId,
      source: { dataset: 'zroot/data' },
      target: {
        dataset: 'zroot/backups/offsite',
        ssh: { user: sshd.username, host: '127.0.0.1', port: sshd.port, hostKey: readFileSync(join(sshd.dir, 'user_key.pub'), 'utf8') },
      },
      schedule: '0 3 * * *',
      retention: 1,
    },
  });
  expectEnvelope(other, 200);
  const refused = await waitForTask((await runNow(res.body.data.id)).taskId, ['success', 'failed', 'interrupted'], 60_000);
  expect(refused.status).toBe('failed');
  expect(refused.error).toContain('host key mismatch');
  const last = (await events(res.body.data.id)).at(-1)!;
  expect(last.status).toBe('failed');
  expect(last.error).toContain('host key mismatch');
}, 120_000);

test("E15 on the job's own runs: the dataset comes back from the second run's snapshot on the target, its data that run's", async () => {
  const file = '/zroot/data/state.txt';
  const write = (content: string) => sim(runner).state((s) => void writeFile(s, file, content, '644', true));
  const job = await createJob('zroot/data', 'zroot/backups/data-restore', 3);
  await write('run 1');
  await taskDone((await runNow(job.id)).taskId);
  await new Promise((r) => setTimeout(r, 1100)); // snapshot names are stamped to the second
  await write('run 2');
  const snap2 = ((await taskDone((await runNow(job.id)).taskId)).result as { snapshot: string }).snapshot;
  await write('changed since');

  const res = await call('POST', `/cluster/backups/jobs/${job.id}/restore`, { token: operator, body: { snapshot: `zroot/data@${snap2}` } });
  expectEnvelope(res, 202, 'backup_restore_queued');
  const task = await taskDone(res.body.data.taskId);
  expect(task.result).toMatchObject({ dataset: 'zroot/data', snapshot: snap2, from: 'target' });
  expect(await sim(runner).state((s) => readFile(s, file))).toBe('run 2');
  const restore = (await events(job.id)).at(-1)!;
  expect({ mode: restore.mode, status: restore.status }).toEqual({ mode: 'restore', status: 'success' });
});
