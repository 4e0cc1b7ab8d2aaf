// @tier e2e
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import {
  getTaskRow,
  probeTask,
  hostKeyFile,
  startTestAgent,
  testHost,
  testJailHost,
  waitForTask,
  waitUntil,
  type TestAgent,
  admitAsMember,
} from '../helpers/agent.ts';
import { peerViaSshd, startSshd, type Sshd } from './sshd-server.ts';
import { HostSimulator } from '#simulator/simulator';
import { findSimJail } from '#simulator/commands/jail-model';
import { dispatchTask } from '#shared/jobs/dispatch';
import { freeGuestId } from '../http/jail-setup.ts';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * Cancellation end to end (POST /api/tasks/{id}/cancel): real agent processes on simulated hosts. A running
 * E7 replacement and a running E20 migration are stopped by their agent (told through its heartbeat or
 * progress answer), undone, and end `cancelled` with the host as it was; a queued task never reaches the host.
 */
const MiB = 2 ** 20;
const GB = 1000 ** 3;

let sshd: Sshd;
let source: TestAgent;
let target: TestAgent;
let pools: TestAgent;
let operator: string;
let ctid: number;

const sim = (agent: TestAgent) => new HostSimulator({ statePath: agent.statePath });
const datasetsOf = (agent: TestAgent) => sim(agent).state((s) => s.datasets.map((d) => d.name));
const filesOf = (agent: TestAgent) => sim(agent).state((s) => (s as SimHost & { files?: Record<string, unknown> }).files ?? {});
const cancel = (id: number) => call('POST', `/tasks/${id}/cancel`, { token: operator });

const poolHost = () =>
  testHost({
    disks: ['ada0', 'ada1', 'ada2', 'ada3'].map((name) => ({ name, sizeBytes: 100 * GB })),
    pools: [
      {
        name: 'tank',
        vdevs: [
          {
            type: 'mirror',
            children: [
              { type: 'disk', name: 'ada1' },
              { type: 'disk', name: 'ada2' },
            ],
          },
        ],
        allocatedBytes: 20 * GB,
      },
    ],
  });

beforeAll(async () => {
  sshd = await startSshd();
  operator = await tokenFor('operator');
  ctid = await freeGuestId();
  target = await startTestAgent({
    host: testJailHost([], hostKeyFile(readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8'))),
    args: ['--node-ip', '127.0.0.1'],
  });
  source = await startTestAgent({
    host: testJailHost([{ ctid, name: 'big', dataset: 'zroot/jails/big', state: 'running' }]),
    // the target "host" behind sshd: every command runs through the simulator CLI on the target's state file
    args: ['--node-ip', '127.0.0.1', ...peerViaSshd(sshd, target.statePath)],
    // a simulated send of the 1 GiB jail streams 16 MiB at 4 KiB/s: over an hour, far longer than the test waits
    // (even stretched for a busy machine), so a migration that ends at all ended because the cancellation stopped its send
    env: { HM_SIM_SEND_MAX_BYTES: String(16 * MiB), HM_SIM_STREAM_BYTES_PER_S: String(4 * 1024) },
  });
  // a resilver of a minute, read every 150 ms
  pools = await startTestAgent({ host: poolHost(), env: { HM_SIM_RESILVER_MS: '60000', HM_RESILVER_POLL_MS: '150' } });
  await Promise.all([source.ready(), target.ready(), pools.ready()]);
  await Promise.all([admitAsMember(source), admitAsMember(target), admitAsMember(pools)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([source?.kill(), target?.kill(), pools?.kill()]);
  await sshd?.stop();
});

test('E7: a running replacement is cancelled: zpool stops resilvering onto the new device, which is detached again', async () => {
  const pool = await waitUntil('the pool in the store', () => testDb().selectFrom('pools').selectAll().where('node_id', '=', pools.nodeId).executeTakeFirst());
  const res = await call('POST', `/zfs/pools/${pool.guid}/replace-device`, { body: { old: 'ada1', new: 'ada3' }, token: operator });
  expectEnvelope(res, 202, 'device_replacement_queued');
  const id = res.body.data.id as number;
  await waitUntil('the resilver under way', async () => (await getTaskRow(id)).phase === 'resilvering', 20_000, 50);
  expect(JSON.stringify(await sim(pools).state((s) => s.pools[0].vdevs))).toContain('"replacing"');

  expectEnvelope(await cancel(id), 202, 'task_cancel_requested');
  const task = await waitForTask(id, ['cancelled', 'success', 'failed'], 20_000);
  expect(task.status).toBe('cancelled');
  expect(task.error).toBe('cancelled: stopped while tank was resilvering onto ada3; undone: ada3 detached from tank');
  // the host as it was: the mirror of ada1 and ada2, no replacing vdev, the resilver canceled
  const after = await sim(pools).state((s) => s.pools[0]);
  expect(after.vdevs).toEqual([
    expect.objectContaining({ type: 'mirror', children: [expect.objectContaining({ name: 'ada1' }), expect.objectContaining({ name: 'ada2' })] }),
  ]);
  expect(after.scan).toMatchObject({ function: 'resilver', state: 'canceled' });
  const status = await sim(pools).run(['zpool', 'status', 'tank']);
  expect(status.stdout).toMatch(/scan: resilver canceled on /);
  expect(status.stdout).not.toContain('ada3');
  // finished: a second cancel is 409
  expectEnvelope(await cancel(id), 409, 'task_already_finished');
}, 60_000);

test('E20: a running migration is cancelled mid-transfer: the send is stopped, the jail runs on the source only', async () => {
  const res = await call('POST', `/jail/${ctid}/migrations`, { token: operator, body: { targetNodeUuid: target.nodeId } });
  expectEnvelope(res, 202);
  const id = res.body.data.taskId as number;
  await waitUntil('the initial send under way', async () => (await getTaskRow(id)).phase === 'initial full send', 20_000, 50);
  expectEnvelope(await cancel(id), 202, 'task_cancel_requested');
  // the send alone would take over an hour: ending inside this (generous) wait means it was stopped
  const task = await waitForTask(id, ['cancelled', 'success', 'failed'], 120_000);
  expect(task.status).toBe('cancelled');
  expect(task.error).toMatch(/^cancelled: .*; undone: the jail stays on this node$/);

  // exactly one host has it: the source, running, with no migration snapshot or journal left
  expect((await sim(source).state((s) => findSimJail(s, 'big')))!.state).toBe('running');
  expect((await datasetsOf(source)).filter((d) => d.startsWith('zroot/jails/big'))).toEqual(['zroot/jails/big']);
  expect((await filesOf(source))[`/var/db/hostmgr/jail-migrations/${ctid}.json`]).toBeUndefined();
  expect(await sim(target).state((s) => findSimJail(s, 'big'))).toBeUndefined();
  expect((await datasetsOf(target)).filter((d) => d.startsWith('zroot/jails/big'))).toEqual([]);
  expect((await testDb().selectFrom('guests').select('node_id').where('id', '=', ctid).executeTakeFirstOrThrow()).node_id).toBe(source.nodeId);
}, 180_000);

test('a queued task cancelled before delivery never reaches the host; the agent skips it and goes on', async () => {
  const t = await probeTask(pools.nodeId, { dispatch: false });
  const res = await cancel(t.id);
  expectEnvelope(res, 200, 'task_cancelled');
  // the message reaches the agent after all (sent late): it asks the store, which says not to run it
  await dispatchTask(t, testDb());
  const next = await probeTask(pools.nodeId);
  expect((await waitForTask(next.id, ['success', 'failed'])).status).toBe('success');
  await waitUntil(
    'the agent skipped the cancelled task',
    async () => pools.log().includes(`"taskId":${t.id}`) && pools.log().includes(`task ${t.id} is already cancelled`),
    20_000,
  );
  const row = await getTaskRow(t.id);
  expect(row).toMatchObject({ status: 'cancelled', attempts: 0, started_at: null });
}, 60_000);
