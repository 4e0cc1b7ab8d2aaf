import { call, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testJailHost, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import type { HostInventory } from '#shared/agent-api/inventory';

/**
 * Changes made on a host by hand, outside the control plane, reach the node's inventory without any task:
 * datasets at the next check, a pool's vdevs when `zpool status` changes (the pools probe), and what no probe
 * watches (groups) at the next full sweep. The agent checks every second here (HM_INVENTORY_INTERVAL=1).
 */
const nodeInventory = async (id: string): Promise<HostInventory | undefined> =>
  (await call('GET', `/cluster/nodes/${id}`, { token: await tokenFor('viewer') })).body.data?.inventory;

async function agentWith(sweepS: number): Promise<{ agent: TestAgent; sim: HostSimulator }> {
  const host = testJailHost([]);
  host.disks.push({ name: 'ada1', sizeBytes: 256 * 1000 ** 3 });
  const agent = await startTestAgent({ host, args: ['--inventory-interval', '1', '--inventory-sweep-interval', String(sweepS)] });
  await agent.ready();
  await waitUntil('the registered inventory', () => nodeInventory(agent.nodeId));
  return { agent, sim: new HostSimulator({ statePath: agent.statePath }) };
}

const tasksOf = async (nodeId: string) => (await testDb().selectFrom('tasks').select('id').where('node_id', '=', nodeId).execute()).length;

test('a dataset and a pool replace done by hand reach the inventory between full sweeps, with no task', async () => {
  // no full sweep after the first during the test: only the checks and their probes can see the change
  const { agent, sim } = await agentWith(86_400);
  expect((await nodeInventory(agent.nodeId))!.disks).toEqual(['ada1']);
  await sim.state((s) => {
    s.datasets.push({ name: 'zroot/by-hand', type: 'filesystem', usedBytes: 98304, mountpoint: '/zroot/by-hand' });
  });
  expect((await sim.run(['zpool', 'replace', 'zroot', 'ada0', 'ada1'])).code).toBe(0);
  const inv = await waitUntil('the by-hand changes in the inventory', async () => {
    const i = await nodeInventory(agent.nodeId);
    const leaves = JSON.stringify(i?.pools?.find((p) => p.name === 'zroot')?.vdevs ?? []);
    return i?.datasets?.some((d) => d.name === 'zroot/by-hand') && leaves.includes('"ada1"') ? i : null;
  });
  expect(inv.disks).not.toContain('ada1');
  expect(await tasksOf(agent.nodeId)).toBe(0);
  await agent.stop();
}, 60_000);

test('a group added by hand, which no probe watches, reaches the inventory at the next full sweep', async () => {
  const { agent, sim } = await agentWith(3);
  expect((await nodeInventory(agent.nodeId))!.groups?.map((g) => g.name) ?? []).not.toContain('by-hand');
  expect((await sim.run(['pw', 'groupadd', 'by-hand'])).code).toBe(0);
  await waitUntil('the group in the inventory', async () => (await nodeInventory(agent.nodeId))?.groups?.some((g) => g.name === 'by-hand'));
  expect(await tasksOf(agent.nodeId)).toBe(0);
  await agent.stop();
}, 60_000);
