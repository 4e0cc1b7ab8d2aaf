import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { freeRids, insertVm, offlineNode, onlineNode, randomMac, tasksOf, vmRow } from './vm-fixtures.ts';

/** E10 DELETE /vm/{rid}/registration through HTTP against the store (the host side: vm-e2e.test.ts). */
const purge = async (rid: number | string, query = '', token?: string | null) =>
  call('DELETE', `/vm/${rid}/registration${query}`, { token: token === undefined ? await tokenFor('operator') : token });

const macObject = (mac: string) => testDb().selectFrom('vm_mac_objects').selectAll().where('mac', '=', mac).executeTakeFirst();
const bindingsOf = (rid: number) => testDb().selectFrom('vm_mac_bindings').selectAll().where('guest_id', '=', rid).execute();

let node: string;
beforeAll(async () => {
  node = await onlineNode();
});

/** An orphaned VM with one MAC of its own and one it shares with a defined VM. */
async function orphanWithMacs() {
  const own = randomMac();
  const shared = randomMac();
  const other = await insertVm({ nodeId: node, macs: [shared] });
  const rid = await insertVm({ nodeId: node, state: 'orphaned', macs: [own, shared], datasets: ['zroot/vms/x/disk0', 'zroot/vms/x/disk1'] });
  return { rid, other, own: (await macObject(own))!, shared: (await macObject(shared))! };
}

describe('E10 DELETE /vm/{rid}/registration', () => {
  test('200: the registration goes, MAC objects no other VM uses go (deletemacs defaults to true), datasets are kept', async () => {
    const { rid, other, own, shared } = await orphanWithMacs();
    const res = await purge(rid);
    expectEnvelope(res, 200, 'vm_registration_purged');
    const [task] = await tasksOf(rid);
    expect(res.body.data).toEqual({
      deletedMacObjectIds: [own.id],
      retainedDatasets: ['zroot/vms/x/disk0', 'zroot/vms/x/disk1'],
      retainedMacObjectIds: [shared.id],
      warnings: [`MAC object ${shared.id} (${shared.mac}) kept: also used by vm ${other}`],
      taskId: task.id,
    });
    expect(await vmRow(rid)).toBeUndefined();
    expect(await bindingsOf(rid)).toEqual([]);
    expect(await macObject(own.mac)).toBeUndefined();
    expect(await macObject(shared.mac)).toMatchObject({ id: shared.id });
    expect((await bindingsOf(other)).map((b) => b.mac_object_id)).toEqual([shared.id]);
    expect(task).toMatchObject({ kind: 'vm.purge-registration', node_id: node, status: 'queued', payload: { rid, domain: String(rid) } });
    // gone now: a second purge is 404
    expectEnvelope(await purge(rid), 404, 'vm_not_found');
  });

  test('deletemacs=false keeps every MAC object and reports them retained', async () => {
    const { rid, own, shared } = await orphanWithMacs();
    const res = await purge(rid, '?deletemacs=false');
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ deletedMacObjectIds: [], retainedMacObjectIds: [own.id, shared.id].sort((a, b) => a - b), warnings: [] });
    expect(await macObject(own.mac)).toBeDefined();
    expect(await vmRow(rid)).toBeUndefined();
  });

  test('deletemacs=true explicitly, and an orphan without MACs or datasets', async () => {
    const rid = await insertVm({ nodeId: node, state: 'orphaned' });
    const res = await purge(rid, '?deletemacs=true');
    expectEnvelope(res, 200);
    expect(res.body.data).toMatchObject({ deletedMacObjectIds: [], retainedDatasets: [], retainedMacObjectIds: [], warnings: [] });
  });

  test('409 vm_still_defined for a VM libvirt defines (any state); nothing deleted, no task', async () => {
    for (const state of ['shut off', 'running', 'paused'] as const) {
      const mac = randomMac();
      const rid = await insertVm({ nodeId: node, state, macs: [mac] });
      const res = await purge(rid);
      expectEnvelope(res, 409, 'vm_still_defined');
      expect(res.body.error).toContain(`vm ${rid} is still defined in libvirt on node ${node} (state: ${state})`);
      expect(await vmRow(rid)).toBeDefined();
      expect(await macObject(mac)).toBeDefined();
      expect(await tasksOf(rid)).toEqual([]);
    }
  });

  test('404 vm_not_found for an unknown RID', async () => {
    const [rid] = await freeRids(1);
    const res = await purge(rid);
    expectEnvelope(res, 404, 'vm_not_found');
    expect(res.body.error).toBe(`vm ${rid} does not exist`);
  });

  test('503 node_offline: libvirt cannot be asked again; nothing deleted', async () => {
    const rid = await insertVm({ nodeId: await offlineNode(), state: 'orphaned' });
    expectEnvelope(await purge(rid), 503, 'node_offline');
    expect(await vmRow(rid)).toBeDefined();
  });

  test('400 for a bad rid, a non-boolean deletemacs and an unknown query parameter', async () => {
    const rid = await insertVm({ nodeId: node, state: 'orphaned' });
    for (const bad of ['0', 'x', '-1']) expect((await purge(bad)).body.error).toMatch(/^path\.rid: /);
    for (const q of ['?deletemacs=maybe', '?deletemacs=2', '?deletemacs=']) {
      const res = await purge(rid, q);
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^query\.deletemacs: /);
    }
    const res = await purge(rid, '?force=1');
    expectEnvelope(res, 400);
    expect(res.body.error).toContain('query.force: is not an accepted field');
    expect(await vmRow(rid)).toBeDefined();
  });

  test('401 without a token, 403 for a viewer', async () => {
    const rid = await insertVm({ nodeId: node, state: 'orphaned' });
    expectEnvelope(await purge(rid, '', null), 401);
    expectEnvelope(await purge(rid, '', await tokenFor('viewer')), 403);
    expect(await vmRow(rid)).toBeDefined();
  });
});
