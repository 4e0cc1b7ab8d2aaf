import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { admitAsMember, getTaskRow, startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { sql } from 'kysely';
import { HostSimulator } from '#simulator/simulator';
import { sweepTasks } from '#domain/task-transitions';

/**
 * A cancel requested on a running E7 replacement survives the agent's restart: the restarted agent detaches the
 * new device (`zpool detach`, which stops a resilver-replace) and the task ends `cancelled` — not `interrupted`
 * while the host goes on to finish the replacement. Also when the node stayed silent long enough for the
 * sweeper to find its running tasks before the agent came back.
 */
const GB = 1000 ** 3;
let pools: TestAgent;
let operator: string;

beforeAll(async () => {
  operator = await tokenFor('operator');
  pools = await startTestAgent({
    host: testHost({
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
    }),
    // a resilver of two minutes: it is still running when the restarted agent comes back
    env: { HM_SIM_RESILVER_MS: '120000', HM_RESILVER_POLL_MS: '150' },
  });
  await pools.ready();
  await admitAsMember(pools);
}, 90_000);

test('E7: a cancel requested while the agent was down is carried out by the restarted agent', async () => {
  const sim = new HostSimulator({ statePath: pools.statePath });
  const pool = await waitUntil('the pool in the store', () => testDb().selectFrom('pools').selectAll().where('node_id', '=', pools.nodeId).executeTakeFirst());
  const res = await call('POST', `/zfs/pools/${pool.guid}/replace-device`, { body: { old: 'ada1', new: 'ada3' }, token: operator });
  expectEnvelope(res, 202, 'device_replacement_queued');
  const id = res.body.data.id as number;
  await waitUntil('the resilver under way', async () => (await getTaskRow(id)).phase === 'resilvering', 20_000, 50);

  // the agent dies mid-resilver; the operator cancels meanwhile (the task is still running in the store)
  await pools.kill();
  expectEnvelope(await call('POST', `/tasks/${id}/cancel`, { token: operator }), 202, 'task_cancel_requested');
  expect(JSON.stringify(await sim.state((s) => s.pools[0].vdevs))).toContain('"replacing"');

  const restarted = await pools.restart();
  await restarted.ready();
  const task = await waitForTask(id, ['cancelled', 'success', 'failed', 'interrupted'], 30_000);
  expect(task.status).toBe('cancelled');
  expect(task.error).toMatch(/^cancelled by .* \(the agent restarted meanwhile\); undone: ada3 detached from tank$/);
  const after = await sim.state((s) => s.pools[0]);
  expect(after.vdevs).toEqual([
    expect.objectContaining({ type: 'mirror', children: [expect.objectContaining({ name: 'ada1' }), expect.objectContaining({ name: 'ada2' })] }),
  ]);
  const status = await sim.run(['zpool', 'status', 'tank']);
  expect(status.stdout).not.toContain('ada3');
  await restarted.kill();
}, 120_000);

test('E7: the sweeper finding the node silent keeps the pending cancel; the returning agent carries it out', async () => {
  const sim = new HostSimulator({ statePath: pools.statePath });
  // the first test left the node's agent stopped
  const agent = await pools.restart();
  await agent.ready();
  const pool = await waitUntil('the pool in the store', () => testDb().selectFrom('pools').selectAll().where('node_id', '=', pools.nodeId).executeTakeFirst());
  const res = await call('POST', `/zfs/pools/${pool.guid}/replace-device`, { body: { old: 'ada1', new: 'ada3' }, token: operator });
  expectEnvelope(res, 202, 'device_replacement_queued');
  const id = res.body.data.id as number;
  await waitUntil('the resilver under way', async () => (await getTaskRow(id)).phase === 'resilvering', 20_000, 50);

  await agent.kill();
  expectEnvelope(await call('POST', `/tasks/${id}/cancel`, { token: operator }), 202, 'task_cancel_requested');
  // the node silent for longer than three heartbeats, the task unchanged as long (the store's clock moved back)
  await testDb().updateTable('nodes').set({ last_seen_at: sql<Date>`now() - interval '1 hour'` }).where('id', '=', pools.nodeId).execute();
  await testDb().updateTable('tasks').set({ updated_at: sql<Date>`now() - interval '1 hour'` }).where('id', '=', id).execute();
  const swept = await sweepTasks(testDb(), { nodeId: pools.nodeId });
  expect(swept.interrupted).not.toContain(id);
  expect(await getTaskRow(id)).toMatchObject({ status: 'running' });

  const restarted = await agent.restart();
  await restarted.ready();
  const task = await waitForTask(id, ['cancelled', 'success', 'failed', 'interrupted'], 30_000);
  expect(task.status).toBe('cancelled');
  expect(task.error).toMatch(/undone: ada3 detached from tank$/);
  const status = await sim.run(['zpool', 'status', 'tank']);
  expect(status.stdout).not.toContain('ada3');
  await restarted.kill();
}, 120_000);
