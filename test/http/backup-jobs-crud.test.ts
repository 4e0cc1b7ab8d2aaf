import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { insertNode, stackQueue } from '../helpers/agent.ts';
import { inTransaction } from '#store/tx';
import { finishTask, startTask, sweepTasks } from '#domain/task-transitions';
import { scheduleDueRuns } from '#domain/backups/scheduler';
import { hostKeyFingerprint } from '#domain/backups/rules';

/**
 * Backup job CRUD, run-now and the schedule over real HTTP and the store: validation naming the field, member
 * rules, the event created `queued` with its task and moved by the task's transitions (start, failure,
 * interruption of a silent node), and the scheduler's one catch-up run for a runner that was offline.
 */
const T = uid();
let operator: string;
let viewer: string;
let runner: string;
let target: string;
let pending: string;

/** An ed25519 public key as ssh-keyscan prints it (any 32 bytes make a well-formed one). */
const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), Buffer.alloc(32, 7)]);
const HOST_KEY = `ssh-ed25519 ${blob.toString('base64')}`;

const body = (over: Record<string, unknown> = {}) => ({
  name: `nightly-${T}`,
  nodeId: runner,
  source: { dataset: 'zroot/data' },
  target: { nodeId: target, dataset: 'vault/backups/data' },
  schedule: '*/5 * * * *',
  retention: 3,
  ...over,
});

const create = (b: unknown, token = operator) => call('POST', '/cluster/backups/jobs', { token, body: b });

beforeAll(async () => {
  stackQueue(); // the scheduler sends its tasks to the test stack's queue
  operator = await tokenFor('operator');
  viewer = await tokenFor('viewer');
  runner = await insertNode(randomUUID(), { status: 'member' });
  target = await insertNode(randomUUID(), { status: 'member' });
  pending = await insertNode(randomUUID(), { status: 'pending' });
});

test('POST creates a job to a member node: 201 with target, retention and the next slot of its schedule', async () => {
  const before = Date.now();
  const res = await create(body());
  expectEnvelope(res, 201, 'backup_job_created');
  const job = res.body.data;
  expect(job).toMatchObject({
    name: `nightly-${T}`,
    nodeId: runner,
    sourceDataset: 'zroot/data',
    guest: null,
    retention: 3,
    enabled: true,
    schedule: '*/5 * * * *',
  });
  expect(job.target).toEqual({ kind: 'node', nodeId: target, dataset: 'vault/backups/data' });
  expect(job.targetEndpoint).toBe(`node-${target.slice(0, 8)}:vault/backups/data`);
  const next = Date.parse(job.nextRunAt);
  expect(next).toBeGreaterThan(before);
  expect(next - before).toBeLessThanOrEqual(5 * 60_000);
  expect(new Date(next).getUTCMinutes() % 5).toBe(0);
  expectEnvelope(await call('GET', `/cluster/backups/jobs/${job.id}`, { token: viewer }), 200, 'backup_job');
});

test('an SSH target keeps its pinned host key; the run hands the agent its fingerprint as the peer to pin', async () => {
  const res = await create(
    body({
      name: `offsite-${T}`,
      target: { dataset: 'archive/data', ssh: { user: 'backup', host: 'backup.example.net', port: 2222, hostKey: `${HOST_KEY} root@backup` } },
    }),
  );
  expectEnvelope(res, 201);
  expect(res.body.data.target).toEqual({ kind: 'ssh', user: 'backup', host: 'backup.example.net', port: 2222, hostKey: HOST_KEY, dataset: 'archive/data' });
  expect(res.body.data.targetEndpoint).toBe('backup@backup.example.net:2222:archive/data');
  const run = await call('POST', `/cluster/backups/jobs/${res.body.data.id}/run`, { token: operator });
  expectEnvelope(run, 202, 'backup_run_queued');
  const task = await testDb().selectFrom('tasks').selectAll().where('id', '=', run.body.data.taskId).executeTakeFirstOrThrow();
  expect((task.payload as { target: unknown }).target).toEqual({
    kind: 'ssh',
    user: 'backup',
    host: 'backup.example.net',
    port: 2222,
    dataset: 'archive/data',
    hostKeys: [hostKeyFingerprint(HOST_KEY)],
    label: 'backup@backup.example.net:2222:archive/data',
  });
  const answer = await inTransaction(testDb(), (trx) => startTask(trx, runner, task.id));
  expect(answer.work!.peers).toEqual([
    { nodeId: 'ssh:backup@backup.example.net:2222', address: 'backup.example.net', port: 2222, user: 'backup', hostKeys: [hostKeyFingerprint(HOST_KEY)] },
  ]);
  expect(hostKeyFingerprint(HOST_KEY)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
});

test.each([
  ['a snapshot as source', { source: { dataset: 'zroot/data@snap' } }, 'body.source.dataset'],
  ['a dataset with an empty component', { target: { nodeId: 'x', dataset: 'vault//data' } }, 'body.target.dataset'],
  ['both a dataset and a guest', { source: { dataset: 'zroot/data', guestType: 'jail', guestId: 101 } }, 'body.source'],
  ['no source at all', { source: {} }, 'body.source'],
  ['neither node nor SSH target', { target: { dataset: 'vault/x' } }, 'body.target'],
  ['a cron minute of 61', { schedule: '61 * * * *' }, 'body.schedule'],
  ['a six-field cron', { schedule: '0 */5 * * * *' }, 'body.schedule'],
  ['retention 0', { retention: 0 }, 'body.retention'],
  ['retention 1001', { retention: 1001 }, 'body.retention'],
  [
    'a host key that is not a key',
    { target: { dataset: 'a/b', ssh: { user: 'backup', host: 'h', hostKey: 'ssh-ed25519 bm90IGEga2V5' } } },
    'body.target.ssh.hostKey',
  ],
  ['an unknown host key type', { target: { dataset: 'a/b', ssh: { user: 'backup', host: 'h', hostKey: 'ssh-dss AAAA' } } }, 'body.target.ssh.hostKey'],
])('400 naming the field: %s', async (_what, over, field) => {
  const res = await create(body(over));
  expectEnvelope(res, 400, 'validation_failed');
  expect(res.body.error).toContain(field);
});

test('400 for the runner as target; 404 for unknown nodes or guests; 409 for a runner or target that is not a member', async () => {
  const same = await create(body({ target: { nodeId: runner, dataset: 'vault/x' } }));
  expectEnvelope(same, 400);
  expect(same.body.error).toContain('body.target.nodeId');
  expectEnvelope(await create(body({ nodeId: randomUUID() })), 404, 'cluster_node_not_found');
  expectEnvelope(await create(body({ nodeId: pending })), 409, 'node_not_member');
  expectEnvelope(await create(body({ target: { nodeId: pending, dataset: 'vault/x' } })), 409, 'node_not_member');
  expectEnvelope(await create(body({ source: { guestType: 'jail', guestId: 9876 } })), 404, 'jail_not_found');
  expectEnvelope(await create(body(), viewer), 403);
});

test('PUT replaces and recomputes the next run; disabled has none; DELETE removes it and its events (409 while a run is active)', async () => {
  const job = (await create(body({ name: `put-${T}` }))).body.data;
  const put = await call('PUT', `/cluster/backups/jobs/${job.id}`, {
    token: operator,
    body: body({ name: `put-${T}`, schedule: '30 2 * * *', retention: 10 }),
  });
  expectEnvelope(put, 200, 'backup_job_updated');
  expect(put.body.data).toMatchObject({ schedule: '30 2 * * *', retention: 10 });
  expect(put.body.data.nextRunAt).toMatch(/T02:30:00\.000Z$/);
  const off = await call('PUT', `/cluster/backups/jobs/${job.id}`, { token: operator, body: body({ name: `put-${T}`, enabled: false }) });
  expect(off.body.data).toMatchObject({ enabled: false, nextRunAt: null });

  const run = await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator });
  expectEnvelope(run, 202);
  expectEnvelope(await call('DELETE', `/cluster/backups/jobs/${job.id}`, { token: operator }), 409, 'backup_job_busy');
  await testDb().updateTable('tasks').set({ status: 'cancelled' }).where('id', '=', run.body.data.taskId).execute();
  expectEnvelope(await call('DELETE', `/cluster/backups/jobs/${job.id}`, { token: operator }), 200, 'backup_job_deleted');
  expectEnvelope(await call('GET', `/cluster/backups/jobs/${job.id}`, { token: viewer }), 404, 'backup_job_not_found');
  expect(await testDb().selectFrom('backup_events').select('id').where('job_id', '=', job.id).execute()).toEqual([]);
  expectEnvelope(await call('PUT', `/cluster/backups/jobs/${job.id}`, { token: operator, body: body() }), 404, 'backup_job_not_found');
});

test('run now: 202 with a queued event tied to its task; the task moves it (running → failed + backup_failed notification); 409 while active', async () => {
  const job = (await create(body({ name: `run-${T}` }))).body.data;
  const run = await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator });
  expectEnvelope(run, 202, 'backup_run_queued');
  const { taskId, eventId } = run.body.data;
  const event = () => testDb().selectFrom('backup_events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
  expect(await event()).toMatchObject({
    job_id: job.id,
    task_id: taskId,
    node_id: runner,
    status: 'queued',
    source_dataset: 'zroot/data',
    target_endpoint: job.targetEndpoint,
    started_at: null,
  });
  expectEnvelope(await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator }), 409, 'resource_busy');

  await inTransaction(testDb(), (trx) => startTask(trx, runner, taskId));
  expect(await event()).toMatchObject({ status: 'running' });
  expect((await event()).started_at).not.toBeNull();
  await inTransaction(testDb(), (trx) =>
    finishTask(trx, runner, taskId, {
      attempt: 1,
      status: 'failed',
      error: "cannot receive incremental stream: destination 'vault/backups/data' has been modified",
      output: 'mode: incremental\n',
    }),
  );
  expect(await event()).toMatchObject({
    status: 'failed',
    mode: 'incremental',
    error: "cannot receive incremental stream: destination 'vault/backups/data' has been modified",
    output: 'mode: incremental\n',
  });
  expect((await event()).completed_at).not.toBeNull();
  const notes = await testDb().selectFrom('notifications').selectAll().where('kind', '=', 'backup_failed').where('node_id', '=', runner).execute();
  expect(notes.map((n) => n.title)).toContain(`Backup job ${job.id} (run-${T}) failed`);
});

test('a running run cancelled by an operator ends cancelled, its event too, and notifies backup_cancelled — never "failed"', async () => {
  const job = (await create(body({ name: `cancel-${T}` }))).body.data;
  const run = await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator });
  expectEnvelope(run, 202);
  const { taskId, eventId } = run.body.data;
  await inTransaction(testDb(), (trx) => startTask(trx, runner, taskId));
  expectEnvelope(await call('POST', `/tasks/${taskId}/cancel`, { token: operator }), 202, 'task_cancel_requested');
  // the agent stops the send and reports the cancellation (agent/runtime/runner.ts: a failure after the cancel is `cancelled`)
  await inTransaction(testDb(), (trx) =>
    finishTask(trx, runner, taskId, { attempt: 1, status: 'cancelled', error: 'cancelled: zfs send stopped', output: 'mode: full\n' }),
  );
  const event = await testDb().selectFrom('backup_events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow();
  expect(event).toMatchObject({ status: 'cancelled', error: 'cancelled: zfs send stopped', mode: 'full' });
  expect(event.completed_at).not.toBeNull();
  const notes = await testDb().selectFrom('notifications').selectAll().where('node_id', '=', runner).execute();
  expect(notes.filter((n) => n.title.startsWith(`Backup job ${job.id} `))).toEqual([
    expect.objectContaining({ kind: 'backup_cancelled', title: `Backup job ${job.id} (cancel-${T}) cancelled`, severity: 'info' }),
  ]);
  // E12 lists it as it ended
  const listed = await call('GET', `/cluster/backups/events/remote?jobId=${job.id}&size=100`, { token: operator });
  expectEnvelope(listed, 200);
  expect(listed.body.data.data.find((e: { id: number }) => e.id === eventId)?.status).toBe('cancelled');
});

test('a silent runner’s running run ends interrupted, and so does its event; run now then waits for the runner; 409 for a non-member', async () => {
  const quiet = await insertNode(randomUUID(), { status: 'member', heartbeatIntervalS: 1 });
  const job = (await create(body({ name: `silent-${T}`, nodeId: quiet }))).body.data;
  const run = await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator });
  expectEnvelope(run, 202);
  await inTransaction(testDb(), (trx) => startTask(trx, quiet, run.body.data.taskId));
  expectEnvelope(await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator }), 409, 'resource_busy');
  // the node goes silent while the run is running
  await testDb()
    .updateTable('nodes')
    .set({ last_seen_at: new Date(Date.now() - 60_000) })
    .where('id', '=', quiet)
    .execute();
  await testDb()
    .updateTable('tasks')
    .set({ updated_at: new Date(Date.now() - 60_000) })
    .where('id', '=', run.body.data.taskId)
    .execute();
  // the stack's own sweeper (every 2 s) may get there first: then this sweep finds nothing left to interrupt
  const swept = await sweepTasks(testDb(), { nodeId: quiet });
  expect(swept.interrupted.filter((id) => id !== run.body.data.taskId)).toEqual([]);
  expect(await testDb().selectFrom('tasks').select('status').where('id', '=', run.body.data.taskId).executeTakeFirstOrThrow()).toEqual({
    status: 'interrupted',
  });
  const ev = await testDb().selectFrom('backup_events').selectAll().where('id', '=', run.body.data.eventId).executeTakeFirstOrThrow();
  expect(ev).toMatchObject({ status: 'interrupted', error: 'interrupted: the node stopped reporting while the task was running' });
  // run now while the runner is away: queued for it (it runs when the runner is back), its event queued
  const later = await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator });
  expectEnvelope(later, 202, 'backup_run_queued');
  expect(await testDb().selectFrom('backup_events').select(['status', 'task_id']).where('id', '=', later.body.data.eventId).executeTakeFirstOrThrow()).toEqual({
    status: 'queued',
    task_id: later.body.data.taskId,
  });
  // a runner that is not a member cannot run it
  await testDb().updateTable('tasks').set({ status: 'cancelled' }).where('id', '=', later.body.data.taskId).execute();
  await testDb().updateTable('nodes').set({ status: 'pending' }).where('id', '=', quiet).execute();
  expectEnvelope(await call('POST', `/cluster/backups/jobs/${job.id}/run`, { token: operator }), 409, 'node_not_member');
});

test('the schedule: an offline runner’s due job waits; when the runner is back it runs once, not once per missed slot', async () => {
  const away = await insertNode(randomUUID(), { status: 'member', lastSeenAt: new Date(Date.now() - 3600_000) });
  const job = (await create(body({ name: `catch-up-${T}`, nodeId: away, schedule: '* * * * *' }))).body.data;
  // 30 slots missed
  await testDb()
    .updateTable('backup_jobs')
    .set({ next_run_at: new Date(Date.now() - 30 * 60_000) })
    .where('id', '=', job.id)
    .execute();
  await scheduleDueRuns(testDb());
  const tasksOf = () => testDb().selectFrom('tasks').select(['id', 'status']).where('resource', '=', `backup-job:${job.id}`).execute();
  expect(await tasksOf()).toEqual([]);

  await testDb().updateTable('nodes').set({ last_seen_at: new Date() }).where('id', '=', away).execute();
  const back = await scheduleDueRuns(testDb());
  const tasks = await tasksOf();
  expect(tasks).toHaveLength(1);
  expect(back.queued).toContain(tasks[0].id);
  const row = await testDb().selectFrom('backup_jobs').select('next_run_at').where('id', '=', job.id).executeTakeFirstOrThrow();
  expect(row.next_run_at!.getTime()).toBeGreaterThan(Date.now());
  const events = await testDb().selectFrom('backup_events').select(['status', 'task_id']).where('job_id', '=', job.id).execute();
  expect(events).toEqual([{ status: 'queued', task_id: tasks[0].id }]);
  // due again while that run is still queued: the slot is skipped, no second task
  await testDb()
    .updateTable('backup_jobs')
    .set({ next_run_at: new Date(Date.now() - 1000) })
    .where('id', '=', job.id)
    .execute();
  const busy = await scheduleDueRuns(testDb());
  expect(busy.busy).toContain(job.id);
  expect(await tasksOf()).toHaveLength(1);
});
