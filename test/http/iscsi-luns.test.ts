import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { createHost, sampleInventory } from './zfs-fixtures.ts';
import { createTarget } from './iscsi-fixtures.ts';
import type { DatasetInventory } from '#domain/inventory';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import type { VmInventory, VmState } from '#shared/domain/vms/types';
import { freeRids } from './vm-fixtures.ts';

const vol = (name: string): DatasetInventory => ({ name, type: 'volume', used: 1 << 30, available: 1 << 30, volsize: 1 << 30 });
const zvols = ['tank/iscsi/vol0', 'tank/iscsi/vol1', 'tank/iscsi/vol2', 'tank/iscsi/vol3', 'tank/iscsi/db%1'];

const post = async (targetId: number | string, body: unknown, token?: string | null) =>
  call('POST', `/iscsi/targets/${targetId}/luns`, { body, token: token === undefined ? await tokenFor('operator') : token });

describe('E13 POST /iscsi/targets/{targetId}/luns (validation, store, task)', () => {
  let nodeId: string;
  let targetId: number;
  let otherTargetId: number;

  beforeAll(async () => {
    const inventory = sampleInventory({ datasets: [...zvols.map(vol), { name: 'tank/home', type: 'filesystem', used: 1, available: 1 }] });
    ({ nodeId } = await createHost({ inventory }));
    targetId = (await createTarget(nodeId, { luns: [{ lunNumber: 0, zvol: 'tank/iscsi/vol0' }] })).target.id;
    otherTargetId = (await createTarget(nodeId)).target.id;
  });

  test('201 lun_added with the LUN; stored with its task, which carries the whole regenerated configuration', async () => {
    const res = await post(targetId, { lunNumber: 1, zvol: 'tank/iscsi/vol1' });
    expectEnvelope(res, 201, 'lun_added');
    expect(res.body.data).toMatchObject({ targetId, nodeId, lunNumber: 1, zvol: 'tank/iscsi/vol1', path: '/dev/zvol/tank/iscsi/vol1' });
    const row = await testDb().selectFrom('iscsi_luns').selectAll().where('target_id', '=', targetId).where('lun_number', '=', 1).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ zvol: 'tank/iscsi/vol1', node_id: nodeId, task_id: res.body.data.taskId });
    const task = await testDb().selectFrom('tasks').selectAll().where('id', '=', res.body.data.taskId).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ kind: 'iscsi.apply-config', node_id: nodeId, resource: `iscsi:${nodeId}`, status: 'queued' });
    const config = (task.payload as { config: { targets: Array<{ name: string; luns: unknown[] }>; portalGroups: unknown[] } }).config;
    expect(config.portalGroups).toHaveLength(2);
    const mine = config.targets.find((t) => t.name === res.body.data.targetName);
    expect(mine?.luns).toEqual([
      { number: 0, zvol: 'tank/iscsi/vol0' },
      { number: 1, zvol: 'tank/iscsi/vol1' },
    ]);
  });

  test('LUN 0 of another target, and a zvol name with % (quoted in ctl.conf), are accepted', async () => {
    expectEnvelope(await post(otherTargetId, { lunNumber: 0, zvol: 'tank/iscsi/db%1' }), 201, 'lun_added');
    expectEnvelope(await post(otherTargetId, { lunNumber: 1023, zvol: 'tank/iscsi/vol3' }, await tokenFor('admin')), 201, 'lun_added');
  });

  test('409 lun_number_in_use for a number the target has; nothing stored', async () => {
    const res = await post(targetId, { lunNumber: 0, zvol: 'tank/iscsi/vol2' });
    expectEnvelope(res, 409, 'lun_number_in_use');
    expect(res.body.error).toMatch(/^body\.lunNumber: .* already has LUN 0 \(tank\/iscsi\/vol0\)$/);
    expect(await testDb().selectFrom('iscsi_luns').select('id').where('node_id', '=', nodeId).where('zvol', '=', 'tank/iscsi/vol2').execute()).toEqual([]);
  });

  test('409 zvol_in_use for a zvol backing any LUN, also of another target', async () => {
    const res = await post(otherTargetId, { lunNumber: 5, zvol: 'tank/iscsi/vol0' });
    expectEnvelope(res, 409, 'zvol_in_use');
    expect(res.body.error).toMatch(/^body\.zvol: zvol tank\/iscsi\/vol0 already backs LUN 0 of target /);
  });

  test('404 iscsi_target_not_found for an unknown target', async () => {
    const res = await post(2147483647, { lunNumber: 0, zvol: 'tank/iscsi/vol2' });
    expectEnvelope(res, 404, 'iscsi_target_not_found');
    expect(res.body.error).toBe('iSCSI target 2147483647 does not exist');
  });

  test('404 zvol_not_found for a zvol the node did not report, or a filesystem', async () => {
    for (const zvol of ['tank/iscsi/missing', 'tank/home']) {
      const res = await post(targetId, { lunNumber: 7, zvol });
      expectEnvelope(res, 404, 'zvol_not_found');
      expect(res.body.error).toBe(`body.zvol: zvol ${zvol} does not exist on node ${nodeId}`);
    }
  });

  test('400 naming each malformed field: missing, wrong types, out of range, zvol syntax, unknown fields', async () => {
    let res = await post(targetId, {});
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.lunNumber: is required');
    expect(res.body.error).toContain('body.zvol: is required');
    res = await post(targetId, { lunNumber: '1', zvol: 5 });
    expect(res.body.error).toContain('body.lunNumber: must be integer');
    expect(res.body.error).toContain('body.zvol: must be string');
    res = await post(targetId, { lunNumber: 1.5, zvol: 'tank/iscsi/vol2', extra: true });
    expect(res.body.error).toContain('body.lunNumber: must be integer');
    expect(res.body.error).toContain('body.extra: is not an accepted field');
    for (const lunNumber of [-1, 1024]) {
      res = await post(targetId, { lunNumber, zvol: 'tank/iscsi/vol2' });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^body\.lunNumber: must be (>=|<=)/);
    }
    for (const zvol of [
      '/tank/iscsi/vol2',
      'tank',
      'tank/iscsi/vol2@snap',
      'tank/../etc',
      'tank//vol',
      'tank/vol 2',
      'tank/vol"2',
      `tank/${'v'.repeat(1020)}`,
      '',
    ]) {
      res = await post(targetId, { lunNumber: 9, zvol });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^body\.zvol: /);
    }
    expect(await testDb().selectFrom('iscsi_luns').select('id').where('node_id', '=', nodeId).where('lun_number', '=', 9).execute()).toEqual([]);
  });

  test('400 for a targetId that is not an integer >= 1', async () => {
    for (const id of ['0', '-1', 'abc', '1.5', '2147483648']) {
      const res = await post(id, { lunNumber: 0, zvol: 'tank/iscsi/vol2' });
      expectEnvelope(res, 400);
      expect(res.body.error).toMatch(/targetId/);
    }
  });

  test('400 for malformed JSON and a non-JSON content type', async () => {
    const token = await tokenFor('operator');
    expectEnvelope(await call('POST', `/iscsi/targets/${targetId}/luns`, { token, rawBody: '{"lunNumber": 2, "zvol": ' }), 400);
    expectEnvelope(
      await call('POST', `/iscsi/targets/${targetId}/luns`, { token, rawBody: '{"lunNumber":2}', headers: { 'content-type': 'text/plain' } }),
      400,
    );
  });

  test('413 for a body over 64 KiB, before it is parsed; a body just under it is parsed (and validated)', async () => {
    const token = await tokenFor('operator');
    const big = await call('POST', `/iscsi/targets/${targetId}/luns`, {
      token,
      rawBody: JSON.stringify({ lunNumber: 2, zvol: 'tank/iscsi/vol2', pad: 'x'.repeat(64 * 1024) }),
    });
    expectEnvelope(big, 413, 'payload_too_large');
    const under = await call('POST', `/iscsi/targets/${targetId}/luns`, {
      token,
      rawBody: JSON.stringify({ lunNumber: 2, zvol: 'tank/iscsi/vol2', pad: 'x'.repeat(60 * 1024) }),
    });
    expectEnvelope(under, 400, 'validation_failed');
    expect(under.body.error).toContain('body.pad: is not an accepted field');
  });

  test('401 without a token; 403 for a viewer (operator and admin may)', async () => {
    expectEnvelope(await post(targetId, { lunNumber: 3, zvol: 'tank/iscsi/vol2' }, null), 401);
    expectEnvelope(await post(targetId, { lunNumber: 3, zvol: 'tank/iscsi/vol2' }, await tokenFor('viewer')), 403, 'forbidden');
    expect(await testDb().selectFrom('iscsi_luns').select('id').where('node_id', '=', nodeId).where('zvol', '=', 'tank/iscsi/vol2').execute()).toEqual([]);
  });
});

describe('E13 refuses a zvol that backs a VM', () => {
  const disks = { running: 'tank/vm/web/disk0', shutOff: 'tank/vm/db/disk0', underRegistration: 'tank/vm/old/disk1', free: 'tank/iscsi/free0' };
  let nodeId: string;
  let targetId: number;
  let rids: number[];

  beforeAll(async () => {
    rids = await freeRids(3);
    const vm = (rid: number, state: VmState, datasets: string[]): VmInventory => ({
      rid,
      domain: String(rid),
      name: `vm${rid}`,
      state,
      options: defaultVmOptions(),
      macs: [],
      datasets,
    });
    const inventory = sampleInventory({
      datasets: Object.values(disks).map(vol),
      vms: [
        vm(rids[0]!, 'running', [disks.running]),
        vm(rids[1]!, 'shut off', [disks.shutOff]),
        // a registration that names the VM's dataset: every zvol under it is the VM's
        vm(rids[2]!, 'orphaned', ['tank/vm/old']),
      ],
    });
    ({ nodeId } = await createHost({ inventory }));
    targetId = (await createTarget(nodeId)).target.id;
  });

  test.each([
    ["a running VM's disk", 'running', 0, 'running'],
    ["a shut-off VM's disk", 'shutOff', 1, 'shut off'],
    ["a zvol under a VM registration's dataset", 'underRegistration', 2, 'orphaned'],
  ] as const)('409 zvol_in_use for %s, saying why; nothing stored, nothing queued', async (_name, key, index, state) => {
    const tasksBefore = await testDb().selectFrom('tasks').select('id').where('node_id', '=', nodeId).execute();
    const res = await post(targetId, { lunNumber: 7, zvol: disks[key] });
    expectEnvelope(res, 409, 'zvol_in_use');
    expect(res.body.error).toBe(
      `body.zvol: zvol ${disks[key]} backs VM ${rids[index]} (vm${rids[index]}, ${state}); exporting a VM's disk as a LUN would give it a second writer and corrupt it`,
    );
    expect(await testDb().selectFrom('iscsi_luns').select('id').where('node_id', '=', nodeId).execute()).toEqual([]);
    expect(await testDb().selectFrom('tasks').select('id').where('node_id', '=', nodeId).execute()).toEqual(tasksBefore);
  });

  test('a zvol no VM uses is still accepted', async () => {
    expectEnvelope(await post(targetId, { lunNumber: 7, zvol: disks.free }), 201, 'lun_added');
  });
});

describe('E13 on a node whose ctld does not read /etc/ctl.conf (rc.conf ctld_flags)', () => {
  const caps = (ctldFlags?: string) => ({ osrelease: '14.3-RELEASE', osreldate: 1403000, racct: false, ...(ctldFlags === undefined ? {} : { ctldFlags }) });

  test.each([
    ['-u', /^ctld_flags="-u" in \/etc\/rc.conf makes ctld read its configuration as UCL \(-u\)/],
    ['-d -f /usr/local/etc/ctl.conf', /^ctld_flags="-d -f \/usr\/local\/etc\/ctl.conf" in \/etc\/rc.conf makes ctld read \/usr\/local\/etc\/ctl.conf \(-f\)/],
  ])('ctld_flags="%s": 409 capability_missing naming it; nothing stored, nothing queued', async (flags, message) => {
    const { nodeId } = await createHost({ inventory: { ...sampleInventory({ datasets: [vol('tank/iscsi/u0')] }), capabilities: caps(flags) } });
    const { target } = await createTarget(nodeId);
    const res = await post(target.id, { lunNumber: 0, zvol: 'tank/iscsi/u0' });
    expectEnvelope(res, 409, 'capability_missing');
    expect(res.body.error).toMatch(message);
    expect(await testDb().selectFrom('iscsi_luns').select('id').where('target_id', '=', target.id).execute()).toEqual([]);
    expect(await testDb().selectFrom('tasks').select('id').where('node_id', '=', nodeId).execute()).toEqual([]);
  });

  test('no flags, -d, or -f /etc/ctl.conf itself — or an agent that does not report them: accepted', async () => {
    for (const flags of ['', '-d', '-f /etc/ctl.conf', undefined]) {
      const { nodeId } = await createHost({ inventory: { ...sampleInventory({ datasets: [vol('tank/iscsi/u1')] }), capabilities: caps(flags) } });
      const { target } = await createTarget(nodeId);
      expectEnvelope(await post(target.id, { lunNumber: 0, zvol: 'tank/iscsi/u1' }), 201, 'lun_added');
    }
  });
});
