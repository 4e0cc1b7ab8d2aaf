import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { LOGIN_PATH } from '#simulator/profiles';
import { readFile } from '#simulator/file-tree';
import { simulatedVms } from '#simulator/commands/virsh';
import { DomainXml, attrsOf, find, is } from '#agent/drivers/domain-xml';
import { hasCdrom, readGuestAgent, readVnc } from '#agent/drivers/domain-xml-options';
import type { VmConfig } from '#shared/domain/vms/types';
import { freeRids, randomMac } from '../http/vm-fixtures.ts';

/**
 * E5, E6, E10, E17, E19 end to end: HTTP → store + task → queue → agent process → simulated FreeBSD host
 * (virsh, makefs, files) → task result → inventory → store.
 */
let agent: TestAgent;
let sim: HostSimulator;
let running: number, stopped: number, spare: number, orphan: number;
const macs = { running: randomMac(), stopped: randomMac(), orphan: randomMac() };

const op = async () => tokenFor('operator');
const put = async (rid: number, path: string, body: unknown) => call('PUT', `/vm/${rid}/${path}`, { body, token: await op() });
const row = (rid: number) => testDb().selectFrom('guests').selectAll().where('id', '=', rid).executeTakeFirst();
const config = async (rid: number) => (await row(rid))?.config as unknown as VmConfig | undefined;
const hostXml = async (rid: number) => DomainXml.parse((await sim.run(['virsh', 'dumpxml', '--security-info', uuidOf(rid)])).stdout);
const uuidOf = (rid: number) => vmsOnHost.find((v) => v.rid === rid)!.uuid!;
let vmsOnHost: Array<{ rid: number; uuid?: string }> = [];
const hostFile = (path: string) => sim.state((s) => readFile(s, path));

beforeAll(async () => {
  [running, stopped, spare, orphan] = await freeRids(4);
  const zvol = (rid: number) => `zroot/vms/${rid}/disk0`;
  agent = await startTestAgent({
    host: testHost({
      // the guest agent channel needs libvirt 12.4 (the 14.3 profile's refusal: vm-simulator.test.ts)
      profile: 'freebsd-15.0',
      datasets: [running, stopped, spare, orphan].map((rid) => ({ name: zvol(rid), type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 })),
      vms: [
        // its bhyve PID (the domain ID) equals the stopped VM's RID: `virsh <rid>` would reach this VM
        { rid: running, name: 'web', state: 'running', id: stopped, macs: [macs.running], zvols: [zvol(running)], vnc: { port: 5900 } },
        { rid: stopped, name: 'db', state: 'shut off', macs: [macs.stopped], zvols: [zvol(stopped)] },
        { rid: spare, name: 'spare', state: 'shut off', zvols: [zvol(spare)] },
        { rid: orphan, name: 'old', state: 'orphaned', macs: [macs.orphan], zvols: [zvol(orphan)] },
      ],
    }),
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath, path: LOGIN_PATH });
  await sim.run(['virsh', 'list', '--all']);
  vmsOnHost = await sim.state((s) => simulatedVms(s).map((v) => ({ rid: v.rid, uuid: v.uuid })));
  await waitUntil(
    'the VMs in the store',
    async () => (await testDb().selectFrom('guests').select('id').where('node_id', '=', agent.nodeId).execute()).length === 4,
  );
}, 60_000);

test('the inventory brings the host’s VMs into the store: states, options, MAC objects, datasets', async () => {
  expect(await row(running)).toMatchObject({ type: 'vm', name: 'web', state: 'running' });
  expect((await row(stopped))!.state).toBe('shut off');
  expect((await row(orphan))!.state).toBe('orphaned');
  expect((await config(running))!.options.vnc).toMatchObject({ enabled: true, port: 5900 });
  expect((await config(orphan))!.datasets).toEqual([`zroot/vms/${orphan}/disk0`]);
  const view = await call('GET', `/vm/${stopped}`, { token: await tokenFor('viewer') });
  expectEnvelope(view, 200, 'vm');
  expect(view.body.data).toMatchObject({ rid: stopped, nodeId: agent.nodeId, state: 'shut off', macObjects: [{ mac: macs.stopped, sharedWith: [] }] });
});

test('E5: the agent defines the guest agent channel; the store follows the host', async () => {
  const res = await put(stopped, 'options/qemu-guest-agent', { enabled: true });
  expectEnvelope(res, 200, 'vm_guest_agent_updated');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('success');
  expect(task.result).toEqual({ rid: stopped, qemuGuestAgent: true });
  const xml = await hostXml(stopped);
  expect(readGuestAgent(xml)).toBe(true);
  expect(attrsOf(find(find(xml.devices, is('channel'))!, is('target'))!)).toEqual({ type: 'virtio', name: 'org.qemu.guest_agent.0' });
  expect(find(xml.devices, is('controller', { type: 'virtio-serial' }))).toBeDefined();
  await waitUntil('the store to show the guest agent', async () => (await config(stopped))?.options.qemuGuestAgent === true);
});

test('E19: VNC graphics + GOP video with the password land in the host XML, not in the store', async () => {
  const res = await put(stopped, 'hardware/vnc', {
    vncEnabled: true,
    vncResolution: '1280x720',
    vncWait: false,
    vncPort: 5905,
    vncBind: '0.0.0.0',
    vncPassword: 'hunter2',
  });
  expectEnvelope(res, 200, 'vm_vnc_updated');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('success');
  // the password reached the host; the finished task no longer keeps it
  expect(task.payload).toMatchObject({ rid: stopped, port: 5905 });
  expect(task.payload).not.toHaveProperty('password');
  const xml = await hostXml(stopped);
  expect(readVnc(xml)).toEqual({ enabled: true, bind: '0.0.0.0', port: 5905, resolution: '1280x720', wait: false, auth: true });
  expect(attrsOf(find(xml.devices, is('graphics'))!).passwd).toBe('hunter2');
  expect(attrsOf(find(find(find(xml.devices, is('video'))!, is('model'))!, is('resolution'))!)).toEqual({ x: '1280', y: '720' });
  // the running VM holds 5900 on this node
  const clash = await put(spare, 'hardware/vnc', { vncEnabled: true, vncResolution: '800x600', vncWait: false, vncPort: 5900 });
  expectEnvelope(clash, 409, 'vnc_port_in_use');
  await waitUntil('the store to show VNC', async () => (await config(stopped))?.options.vnc.port === 5905);
  expect(JSON.stringify(await config(stopped))).not.toContain('hunter2');
});

test('E19 with vncWait: 200, and the definition read back waits (bhyve -o on the video slot, passed through)', async () => {
  const res = await put(stopped, 'hardware/vnc', { vncEnabled: true, vncResolution: '1280x720', vncWait: true, vncPort: 5905, vncBind: '0.0.0.0' });
  expectEnvelope(res, 200, 'vm_vnc_updated');
  expect(res.body.data).toMatchObject({ vncWait: true, vncPort: 5905, vncAuth: true });
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('success');
  const xml = await hostXml(stopped);
  // the other fields and the password are as they were
  expect(readVnc(xml)).toEqual({ enabled: true, bind: '0.0.0.0', port: 5905, resolution: '1280x720', wait: true, auth: true });
  expect(attrsOf(find(xml.devices, is('graphics'))!).passwd).toBe('hunter2');
  await waitUntil('the store to show the wait', async () => (await config(stopped))?.options.vnc.wait === true);
  // the port-conflict rule still holds with wait asked for
  const clash = await put(spare, 'hardware/vnc', { vncEnabled: true, vncResolution: '800x600', vncWait: true, vncPort: 5905 });
  expectEnvelope(clash, 409, 'vnc_port_in_use');
});

test('E17: the cloud-init seed ISO is built with makefs and attached; clearing detaches it', async () => {
  const texts = { data: '#cloud-config\nhostname: db\n', metadata: `instance-id: vm-${stopped}\n`, networkConfig: 'version: 2\n' };
  let res = await put(stopped, 'options/cloud-init', texts);
  expectEnvelope(res, 200, 'vm_cloud_init_updated');
  expect((await waitForTask(res.body.data.taskId, ['success', 'failed'])).status).toBe('success');
  const iso = `/var/db/hostmgr/vms/${stopped}/cloud-init.iso`;
  expect(hasCdrom(await hostXml(stopped), iso)).toBe(true);
  expect(JSON.parse((await hostFile(iso))!)).toEqual({
    format: 'cd9660',
    label: 'CIDATA',
    rockridge: true,
    files: { 'user-data': texts.data, 'meta-data': texts.metadata, 'network-config': texts.networkConfig },
  });
  await waitUntil('the store to show cloud-init', async () => (await config(stopped))?.options.cloudInit.data === texts.data);

  res = await put(stopped, 'options/cloud-init', { data: '', metadata: '', networkConfig: '' });
  expect((await waitForTask(res.body.data.taskId, ['success', 'failed'])).status).toBe('success');
  expect(hasCdrom(await hostXml(stopped), iso)).toBe(false);
  expect(await hostFile(iso)).toBeNull();
});

test('E6: the wait time of a running VM goes into its registration on the host', async () => {
  const res = await put(running, 'options/shutdown-wait-time', { waitTime: 240 });
  expectEnvelope(res, 200, 'vm_shutdown_wait_time_updated');
  expect((await waitForTask(res.body.data.taskId, ['success', 'failed'])).status).toBe('success');
  expect(JSON.parse((await hostFile(`/var/db/hostmgr/vms/${running}/vm.json`))!).shutdownWaitTime).toBe(240);
  await waitUntil('the store to show the wait time', async () => (await config(running))?.options.shutdownWaitTime === 240);
});

test('the agent re-checks the state: a VM that runs on the host is not changed, the task fails and the store returns to the host’s truth', async () => {
  // the host started the VM after its last report
  await sim.run(['virsh', 'start', uuidOf(spare)]);
  const res = await put(spare, 'options/qemu-guest-agent', { enabled: true });
  expectEnvelope(res, 200);
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('failed');
  expect(task.error).toMatch(/^vm_not_shut_off: vm \d+ is running on the host/);
  expect(readGuestAgent(await hostXml(spare))).toBe(false);
  await waitUntil('the store to drop the option the host never applied', async () => (await config(spare))?.options.qemuGuestAgent === false);
  const note = await testDb().selectFrom('notifications').selectAll().where('title', 'like', `Task ${task.id} %`).executeTakeFirst();
  expect(note).toMatchObject({ kind: 'task_failed' });
  await waitUntil('the running state in the store', async () => (await row(spare))?.state === 'running');
  expectEnvelope(await put(spare, 'options/qemu-guest-agent', { enabled: false }), 409, 'vm_not_shut_off');
});

test('E10: an orphaned registration is purged on the host and in the store; datasets stay', async () => {
  const res = await call('DELETE', `/vm/${orphan}/registration`, { token: await op() });
  expectEnvelope(res, 200, 'vm_registration_purged');
  expect(res.body.data).toMatchObject({ retainedDatasets: [`zroot/vms/${orphan}/disk0`], retainedMacObjectIds: [], warnings: [] });
  expect(res.body.data.deletedMacObjectIds).toHaveLength(1);
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('success');
  expect(await hostFile(`/var/db/hostmgr/vms/${orphan}/vm.json`)).toBeNull();
  expect(await hostFile(`/var/db/hostmgr/vms/${orphan}/domain.xml`)).toBeNull();
  // datasets are never touched
  expect(await sim.state((s) => s.datasets.some((d) => d.name === `zroot/vms/${orphan}/disk0`))).toBe(true);
  expect(await row(orphan)).toBeUndefined();
  expect(await testDb().selectFrom('vm_mac_objects').select('id').where('mac', '=', macs.orphan).executeTakeFirst()).toBeUndefined();
  // the next report no longer has it: it stays gone
  const inv = await waitUntil('an inventory without the purged VM', async () => {
    const n = await testDb().selectFrom('nodes').select('inventory').where('id', '=', agent.nodeId).executeTakeFirstOrThrow();
    const vms = (n.inventory as { vms?: Array<{ rid: number }> }).vms ?? [];
    return vms.some((v) => v.rid === orphan) ? null : vms;
  });
  expect(inv.map((v) => v.rid).sort()).toEqual([running, stopped, spare].sort());
  expect(await row(orphan)).toBeUndefined();
});

test('E10 re-checked on the host: a registration the store thought orphaned but libvirt defines is kept and comes back', async () => {
  // the store's view is stale: it believes `stopped` is orphaned
  await testDb().updateTable('guests').set({ state: 'orphaned' }).where('id', '=', stopped).execute();
  const res = await call('DELETE', `/vm/${stopped}/registration?deletemacs=false`, { token: await op() });
  expectEnvelope(res, 200);
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('failed');
  expect(task.error).toMatch(/^vm_still_defined: libvirt defines domain/);
  expect(await hostFile(`/var/db/hostmgr/vms/${stopped}/vm.json`)).not.toBeNull();
  expect(await sim.state((s) => simulatedVms(s).find((v) => v.rid === stopped)?.state)).toBe('shut off');
  await waitUntil('the registration back in the store', async () => (await row(stopped))?.state === 'shut off');
});

afterAll(async () => {
  await agent?.stop();
});
