import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { readFile } from '#simulator/file-tree';
import { createTarget } from '../http/iscsi-fixtures.ts';

/**
 * E13 end to end: HTTP → store + task → queue → agent process → simulated FreeBSD host (ctl.conf written beside
 * the live one, `ctld -t`, mv, `service ctld onestart|onereload`) → task result; and a configuration ctld refuses.
 */
let agent: TestAgent;
let sim: HostSimulator;
let targetId: number;
let targetName: string;

const zvols = ['tank/iscsi/vol0', 'tank/iscsi/vol1', 'tank/iscsi/vol2'];
const post = async (id: number, body: unknown) => call('POST', `/iscsi/targets/${id}/luns`, { body, token: await tokenFor('operator') });
const hostFile = (path: string) => sim.state((s) => readFile(s, path));
const fileMode = (path: string) => sim.state((s) => (s as { files?: Record<string, { mode: string }> }).files?.[path]?.mode);
const ctldLoaded = () => sim.state((s) => s.ctld?.loaded ?? null);

beforeAll(async () => {
  agent = await startTestAgent({
    host: testHost({ datasets: zvols.map((name) => ({ name, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 })) }),
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
  await waitUntil('the zvols in the inventory', async () => {
    const node = await testDb().selectFrom('nodes').select('inventory').where('id', '=', agent.nodeId).executeTakeFirst();
    return ((node?.inventory as { datasets?: unknown[] } | undefined)?.datasets?.length ?? 0) >= zvols.length;
  });
  const { target } = await createTarget(agent.nodeId, { listen: ['0.0.0.0:3260'] });
  targetId = target.id;
  targetName = target.name;
}, 60_000);

afterAll(async () => {
  await agent?.stop();
});

test('first LUN: /etc/ctl.conf written (0600), accepted by ctld -t, and ctld started with it', async () => {
  expect(await hostFile('/etc/ctl.conf')).toBeNull();
  const res = await post(targetId, { lunNumber: 0, zvol: 'tank/iscsi/vol0' });
  expectEnvelope(res, 201, 'lun_added');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.error).toBe('');
  expect(task.status).toBe('success');
  expect(task.result).toEqual({ action: 'onestart', luns: 1 });

  const conf = (await hostFile('/etc/ctl.conf'))!;
  expect(conf).toContain(`target ${targetName} {`);
  expect(conf).toContain('\tlun 0 {\n\t\tpath /dev/zvol/tank/iscsi/vol0\n\t}');
  expect(await fileMode('/etc/ctl.conf')).toBe('600');
  expect((await sim.run(['ctld', '-t', '-f', '/etc/ctl.conf'])).code).toBe(0);
  expect(await sim.run(['service', 'ctld', 'onestatus'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ctld is running as pid \d+\.\n$/) });
  expect(await ctldLoaded()).toBe(conf);
  // nothing left beside it
  expect((await sim.run(['ls', '/etc'])).stdout).not.toMatch(/ctl\.conf\.hostmgr/);
});

test('second LUN: the whole file regenerated with both LUNs, and ctld reloaded', async () => {
  const res = await post(targetId, { lunNumber: 1, zvol: 'tank/iscsi/vol1' });
  expectEnvelope(res, 201, 'lun_added');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('success');
  expect(task.result).toEqual({ action: 'onereload', luns: 2 });
  const conf = (await hostFile('/etc/ctl.conf'))!;
  expect(conf).toContain('\tlun 0 {\n\t\tpath /dev/zvol/tank/iscsi/vol0\n\t}\n\tlun 1 {\n\t\tpath /dev/zvol/tank/iscsi/vol1\n\t}');
  expect(await ctldLoaded()).toBe(conf);
});

test('a configuration ctld -t rejects: the task fails with ctld’s message, the old file stays, the LUN is dropped', async () => {
  const before = await hostFile('/etc/ctl.conf');
  const bad = await createTarget(agent.nodeId, { listen: ['192.0.2.300:3260'] });
  const res = await post(bad.target.id, { lunNumber: 0, zvol: 'tank/iscsi/vol2' });
  expectEnvelope(res, 201, 'lun_added');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('failed');
  expect(task.error).toBe('ctld: invalid listen address 192.0.2.300:3260\nctld: configuration error; exiting');
  expect(await hostFile('/etc/ctl.conf')).toBe(before);
  expect(await ctldLoaded()).toBe(before);
  expect((await sim.run(['ls', '/etc'])).stdout).not.toMatch(/ctl\.conf\.hostmgr/);
  // the store follows the host: the LUN is gone, its zvol free again
  await waitUntil('the refused LUN removed', async () => (await testDb().selectFrom('iscsi_luns').select('id').where('node_id', '=', agent.nodeId).where('zvol', '=', 'tank/iscsi/vol2').execute()).length === 0);

  // without the broken portal group the same zvol goes onto the good target
  await testDb().deleteFrom('iscsi_targets').where('id', '=', bad.target.id).execute();
  await testDb().deleteFrom('iscsi_portal_groups').where('id', '=', bad.group.id).execute();
  const again = await post(targetId, { lunNumber: 2, zvol: 'tank/iscsi/vol2' });
  expectEnvelope(again, 201, 'lun_added');
  expect((await waitForTask(again.body.data.taskId, ['success', 'failed'])).status).toBe('success');
  expect(await hostFile('/etc/ctl.conf')).toContain('\tlun 2 {\n\t\tpath /dev/zvol/tank/iscsi/vol2\n\t}');
});
