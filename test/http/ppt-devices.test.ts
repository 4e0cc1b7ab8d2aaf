import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { createHost, sampleInventory } from './zfs-fixtures.ts';
import type { PciDeviceInventory } from '#domain/ppt/types';

/** E9 through sls offline: validation, the store, the task; the host effect is in test/agent/ppt-e2e.test.ts. */
const pci = (driver: string, unit: number, domain: number, bus: number, slot: number, fn: number): PciDeviceInventory => ({
  selector: `${driver}${unit}@pci${domain}:${bus}:${slot}:${fn}`,
  driver,
  unit,
  domain,
  bus,
  slot,
  function: fn,
  class: '0x020000',
  vendorId: '0x10ec',
  deviceId: '0x8168',
});

const post = async (body: unknown, opts: { nodeId?: string; token?: string | null; query?: string } = {}) =>
  call('POST', `/system/ppt-devices/import${opts.query ?? (opts.nodeId ? `?nodeId=${encodeURIComponent(opts.nodeId)}` : '')}`, {
    body,
    token: opts.token === undefined ? await tokenFor('admin') : opts.token,
  });

const rows = (nodeId: string) => testDb().selectFrom('ppt_devices').selectAll().where('node_id', '=', nodeId).orderBy('id').execute();
const tasksOf = (nodeId: string) =>
  testDb().selectFrom('tasks').selectAll().where('node_id', '=', nodeId).where('kind', '=', 'ppt.import').orderBy('id').execute();

describe('E9 POST /system/ppt-devices/import', () => {
  let nodeId: string;
  beforeAll(async () => {
    const inventory = sampleInventory({
      pciDevices: [
        pci('re', 0, 0, 2, 0, 0),
        pci('ppt', 0, 0, 3, 0, 0),
        pci('ppt', 1, 0, 4, 0, 1),
        pci('none', 0, 0, 0, 15, 0),
        pci('ppt', 2, 1, 5, 0, 0),
        pci('ppt', 3, 0, 255, 31, 7),
      ],
    });
    ({ nodeId } = await createHost({ inventory }));
  });

  test('201 with the record {id, deviceID, domain (integer), oldDriver}; one row and one ppt.import task', async () => {
    const res = await post({ deviceID: '3/0/0', domain: '0' }, { nodeId });
    expectEnvelope(res, 201, 'ppt_device_imported');
    expect(res.body.data).toEqual({ id: expect.any(Number), deviceID: '3/0/0', domain: 0, oldDriver: 'ppt', nodeId, taskId: expect.any(Number) });
    const [row] = await rows(nodeId);
    expect(row).toMatchObject({
      id: res.body.data.id,
      domain: 0,
      bus: 3,
      slot: 0,
      function: 0,
      device_id: '3/0/0',
      old_driver: 'ppt',
      task_id: res.body.data.taskId,
    });
    const [task] = await tasksOf(nodeId);
    expect(task).toMatchObject({ id: res.body.data.taskId, kind: 'ppt.import', resource: 'file:/boot/loader.conf', status: 'queued' });
    expect(task.payload).toEqual({ deviceID: '3/0/0' });
  });

  test('the same device again: 200 Already Managed with the same record, no second row or task', async () => {
    const first = (await rows(nodeId)).find((r) => r.device_id === '3/0/0')!;
    const tasksBefore = (await tasksOf(nodeId)).length;
    for (const deviceID of ['3/0/0', '03/00/0']) {
      const res = await post({ deviceID, domain: '0' }, { nodeId });
      expectEnvelope(res, 200, 'ppt_device_already_managed');
      expect(res.body.data).toEqual({ id: first.id, deviceID: '3/0/0', domain: 0, oldDriver: 'ppt', nodeId, taskId: first.task_id });
    }
    expect((await rows(nodeId)).filter((r) => r.device_id === '3/0/0')).toHaveLength(1);
    expect(await tasksOf(nodeId)).toHaveLength(tasksBefore);
  });

  test('the largest address (255/31/7) and a non-zero function are accepted; "00" is domain 0', async () => {
    expectEnvelope(await post({ deviceID: '255/31/7', domain: '0' }, { nodeId }), 201, 'ppt_device_imported');
    const res = await post({ deviceID: '4/0/1', domain: '00' }, { nodeId });
    expectEnvelope(res, 201);
    expect(res.body.data).toMatchObject({ deviceID: '4/0/1', domain: 0 });
  });

  test('400 pci_domain_unsupported for any domain but 0, even a device that exists there; nothing stored', async () => {
    const before = (await rows(nodeId)).length;
    for (const domain of ['1', '2', '65535']) {
      const res = await post({ deviceID: '5/0/0', domain }, { nodeId });
      expectEnvelope(res, 400, 'pci_domain_unsupported');
      expect(res.body.error).toMatch(/^body\.domain: only PCI domain 0/);
    }
    expect(await rows(nodeId)).toHaveLength(before);
  });

  test('400 invalid_pci_address naming the part out of range (bus ≤ 255, slot ≤ 31, function ≤ 7)', async () => {
    const cases: Array<[string, RegExp]> = [
      ['256/0/0', /bus 256 is out of range 0–255/],
      ['3/32/0', /slot 32 is out of range 0–31/],
      ['3/0/8', /function 8 is out of range 0–7/],
    ];
    for (const [deviceID, problem] of cases) {
      const res = await post({ deviceID, domain: '0' }, { nodeId });
      expectEnvelope(res, 400, 'invalid_pci_address');
      expect(res.body.error).toMatch(/^body\.deviceID: /);
      expect(res.body.error).toMatch(problem);
    }
  });

  test('400 validation_failed naming each malformed field: missing, wrong types, not b/s/f, extra fields', async () => {
    let res = await post({}, { nodeId });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.deviceID: is required');
    expect(res.body.error).toContain('body.domain: is required');
    res = await post({ deviceID: 3, domain: 0 }, { nodeId });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.deviceID: must be string');
    expect(res.body.error).toContain('body.domain: must be string');
    for (const deviceID of ['3:0:0', '3/0', 'a/b/c', '-1/0/0', '3/0/0/0', '3.0.0']) {
      res = await post({ deviceID, domain: '0' }, { nodeId });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/body\.deviceID: must (match pattern|NOT have fewer)/);
    }
    res = await post({ deviceID: '3/0/0', domain: '-1' }, { nodeId });
    expect(res.body.error).toContain('body.domain: must match pattern');
    res = await post({ deviceID: '3/0/0', domain: '0', driver: 'ppt' }, { nodeId });
    expect(res.body.error).toContain('body.driver: is not an accepted field');
    res = await post({ deviceID: '3/0/0', domain: '0' }, { query: '?node=1' });
    expect(res.body.error).toContain('query.node: is not an accepted field');
  });

  test('400 malformed_json for a body that is not JSON, and for an array body', async () => {
    let res = await call('POST', `/system/ppt-devices/import?nodeId=${nodeId}`, { rawBody: '{"deviceID": "3/0/0",', token: await tokenFor('admin') });
    expectEnvelope(res, 400, 'malformed_json');
    res = await post(['3/0/0', '0'], { nodeId });
    expectEnvelope(res, 400);
  });

  test('404 pci_device_not_found for an address the node did not report; 404 cluster_node_not_found', async () => {
    let res = await post({ deviceID: '9/0/0', domain: '0' }, { nodeId });
    expectEnvelope(res, 404, 'pci_device_not_found');
    expect(res.body.error).toBe(`PCI device 9/0/0 (domain 0) does not exist on node ${nodeId}`);
    res = await post({ deviceID: '3/0/0', domain: '0' }, { nodeId: 'no-such-node' });
    expectEnvelope(res, 404, 'cluster_node_not_found');
  });

  test('404 pci_device_not_found on a node whose inventory has no PCI section', async () => {
    const bare = await createHost();
    const res = await post({ deviceID: '3/0/0', domain: '0' }, { nodeId: bare.nodeId });
    expectEnvelope(res, 404, 'pci_device_not_found');
  });

  test('409 pci_device_not_ppt for a device on another driver or on none; nothing stored, no task', async () => {
    const before = { rows: (await rows(nodeId)).length, tasks: (await tasksOf(nodeId)).length };
    let res = await post({ deviceID: '2/0/0', domain: '0' }, { nodeId });
    expectEnvelope(res, 409, 'pci_device_not_ppt');
    expect(res.body.error).toBe('PCI device 2/0/0 is attached to re0 (re0@pci0:2:0:0), not to ppt');
    res = await post({ deviceID: '0/15/0', domain: '0' }, { nodeId });
    expectEnvelope(res, 409, 'pci_device_not_ppt');
    expect(res.body.error).toContain('attached to none (none0@pci0:0:15:0)');
    expect(await rows(nodeId)).toHaveLength(before.rows);
    expect(await tasksOf(nodeId)).toHaveLength(before.tasks);
  });

  test('413 for a body over the limit, before anything is stored', async () => {
    const before = (await rows(nodeId)).length;
    const res = await call('POST', `/system/ppt-devices/import?nodeId=${nodeId}`, {
      rawBody: JSON.stringify({ deviceID: '3/0/0', domain: '0', padding: 'x'.repeat(1024 * 1024 + 1) }),
      token: await tokenFor('admin'),
    });
    expectEnvelope(res, 413, 'payload_too_large');
    expect(await rows(nodeId)).toHaveLength(before);
  });

  test('401 without a token; 403 for operator and viewer (admin only), nothing stored', async () => {
    const before = (await rows(nodeId)).length;
    expectEnvelope(await post({ deviceID: '3/0/0', domain: '0' }, { nodeId, token: null }), 401);
    expectEnvelope(await post({ deviceID: '3/0/0', domain: '0' }, { nodeId, token: 'not-a-token' }), 401);
    expectEnvelope(await post({ deviceID: '3/0/0', domain: '0' }, { nodeId, token: await tokenFor('operator') }), 403, 'forbidden');
    expectEnvelope(await post({ deviceID: '3/0/0', domain: '0' }, { nodeId, token: await tokenFor('viewer') }), 403, 'forbidden');
    expect(await rows(nodeId)).toHaveLength(before);
  });
});
