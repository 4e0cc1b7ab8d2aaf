import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { makeDirs, readFile, removeFile, removeTree } from '#simulator/file-tree';
import type { PciDeviceInventory } from '#domain/ppt/types';

/**
 * E9 end to end: the host's `pciconf -lv` → inventory → store; HTTP → record + ppt.import task → queue →
 * agent process → /boot/loader.conf on the simulated FreeBSD host → task result.
 */
let agent: TestAgent;
let sim: HostSimulator;

const LOADER_CONF = '/boot/loader.conf';
const dev = (driver: string, unit: number, bus: number, slot: number, fn: number, device: string) => ({
  driver,
  unit,
  bus,
  slot,
  function: fn,
  class: '0x020000',
  rev: '0x15',
  vendorId: '0x10ec',
  deviceId: '0x8168',
  subdeviceId: '0x0123',
  vendor: 'Realtek Semiconductor Co., Ltd.',
  device,
  className: 'network',
  subclass: 'ethernet',
});

const post = async (deviceID: string) => call('POST', `/system/ppt-devices/import?nodeId=${agent.nodeId}`, { body: { deviceID, domain: '0' }, token: await tokenFor('admin') });
const hostFile = (path: string) => sim.state((s) => readFile(s, path));
const managed = () => testDb().selectFrom('ppt_devices').select('device_id').where('node_id', '=', agent.nodeId).orderBy('id').execute();

beforeAll(async () => {
  agent = await startTestAgent({
    host: testHost({
      pciDevices: [dev('re', 0, 2, 0, 0, 'RTL8111/8168/8211/8411 PCI Express Gigabit Ethernet Controller'), dev('ppt', 0, 3, 0, 0, 'RTL8111/8168 PCIe'), dev('ppt', 1, 4, 0, 0, 'RTL8111/8168 PCIe'), dev('ppt', 2, 5, 0, 0, 'RTL8111/8168 PCIe')],
      files: { [LOADER_CONF]: { content: 'autoboot_delay="3"\nzfs_load="YES"\nvmm_load="NO"\npptdevs="10/0/0"\n', mode: '644' } },
    }),
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
});

test('the inventory reports the host’s PCI devices from pciconf -lv', async () => {
  const node = await waitUntil('the PCI devices in the inventory', async () => {
    const row = await testDb().selectFrom('nodes').select('inventory').where('id', '=', agent.nodeId).executeTakeFirst();
    return (row?.inventory as { pciDevices?: PciDeviceInventory[] } | undefined)?.pciDevices;
  });
  expect(node.map((d) => d.selector)).toEqual(['re0@pci0:2:0:0', 'ppt0@pci0:3:0:0', 'ppt1@pci0:4:0:0', 'ppt2@pci0:5:0:0']);
  expect(node[1]).toMatchObject({ driver: 'ppt', vendor: 'Realtek Semiconductor Co., Ltd.', className: 'network', subclass: 'ethernet' });
});

test('E9: the agent adds the device to pptdevs and sets ppt_load/vmm_load; other lines untouched', async () => {
  const res = await post('3/0/0');
  expectEnvelope(res, 201, 'ppt_device_imported');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.error).toBe('');
  expect(task.status).toBe('success');
  expect(task.result).toEqual({ deviceID: '3/0/0', pptdevs: ['10/0/0', '3/0/0'] });
  expect(await hostFile(LOADER_CONF)).toBe('autoboot_delay="3"\nzfs_load="YES"\nvmm_load="YES"\npptdevs="10/0/0 3/0/0"\nppt_load="YES"\n');
  expect(await hostFile(`${LOADER_CONF}.hostmgr-new`)).toBeNull();

  const second = await post('4/0/0');
  expectEnvelope(second, 201);
  expect((await waitForTask(second.body.data.taskId, ['success', 'failed'])).status).toBe('success');
  const again = await post('3/0/0');
  expectEnvelope(again, 200, 'ppt_device_already_managed');
  expect(await hostFile(LOADER_CONF)).toBe('autoboot_delay="3"\nzfs_load="YES"\nvmm_load="YES"\npptdevs="10/0/0 3/0/0 4/0/0"\nppt_load="YES"\n');
});

test('E9: a host that cannot write loader.conf fails the task with its reason, and the device is not managed', async () => {
  await sim.state((s) => {
    removeFile(s, LOADER_CONF);
    makeDirs(s, LOADER_CONF);
  });
  const res = await post('5/0/0');
  expectEnvelope(res, 201);
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('failed');
  expect(task.error).toContain('/boot/loader.conf: Is a directory');
  await waitUntil('the record of the failed import to go', async () => !(await managed()).some((r) => r.device_id === '5/0/0'));
  expect((await managed()).map((r) => r.device_id)).toEqual(['3/0/0', '4/0/0']);
  // importing it again is a new attempt, not Already Managed
  await sim.state((s) => {
    removeTree(s, LOADER_CONF);
  });
  const retry = await post('5/0/0');
  expectEnvelope(retry, 201, 'ppt_device_imported');
  expect((await waitForTask(retry.body.data.taskId, ['success', 'failed'])).status).toBe('success');
  expect(await hostFile(LOADER_CONF)).toBe('pptdevs="5/0/0"\nppt_load="YES"\nvmm_load="YES"\n');
});
