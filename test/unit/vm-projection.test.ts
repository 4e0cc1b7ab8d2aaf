// @tier stack
import { sql } from 'kysely';
import { testDb } from '../helpers/api.ts';
import { applyVmInventory } from '#domain/vms/projection';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import type { VmConfig, VmInventory } from '#shared/domain/vms/types';
import { freeRids, insertVm, onlineNode, randomMac } from '../http/vm-fixtures.ts';

/** The VM inventory projection against the real store (PGlite or PostgreSQL). */
const vm = (rid: number, extra: Partial<VmInventory> = {}): VmInventory => ({
  rid,
  domain: String(rid),
  name: `vm${rid}`,
  state: 'shut off',
  options: defaultVmOptions(),
  macs: [],
  datasets: [],
  ...extra,
});
const row = (rid: number) => testDb().selectFrom('guests').selectAll().where('id', '=', rid).executeTakeFirst();
const config = async (rid: number) => (await row(rid))?.config as unknown as VmConfig;
const macsOf = async (rid: number) =>
  (
    await testDb()
      .selectFrom('vm_mac_bindings as b')
      .innerJoin('vm_mac_objects as o', 'o.id', 'b.mac_object_id')
      .select('o.mac')
      .where('b.guest_id', '=', rid)
      .orderBy('o.mac')
      .execute()
  ).map((r) => r.mac);

test('new VMs are inserted with their options, MAC objects are created and bound; later reports update them', async () => {
  const node = await onlineNode();
  const [rid] = await freeRids(1);
  const [m1, m2, m3] = [randomMac(), randomMac(), randomMac()].sort();
  const options = { ...defaultVmOptions(), qemuGuestAgent: true };
  expect(await applyVmInventory(testDb(), node, [vm(rid, { state: 'running', options, macs: [m1, m2], datasets: ['zroot/v/d0'] })])).toEqual([]);
  expect(await row(rid)).toMatchObject({ type: 'vm', node_id: node, name: `vm${rid}`, state: 'running' });
  expect((await config(rid)).options.qemuGuestAgent).toBe(true);
  expect(await macsOf(rid)).toEqual([m1, m2]);

  await applyVmInventory(testDb(), node, [vm(rid, { state: 'shut off', macs: [m2, m3] })]);
  expect((await row(rid))!.state).toBe('shut off');
  expect((await config(rid)).options.qemuGuestAgent).toBe(false);
  expect(await macsOf(rid)).toEqual([m2, m3]);
  // the unbound object stays: it is the operator's
  expect(await testDb().selectFrom('vm_mac_objects').select('id').where('mac', '=', m1).executeTakeFirst()).toBeDefined();
});

test('undefined changes nothing; a VM the host no longer reports is removed', async () => {
  const node = await onlineNode();
  const [a, b] = await freeRids(2);
  await applyVmInventory(testDb(), node, [vm(a), vm(b)]);
  await applyVmInventory(testDb(), node, undefined);
  expect(await row(a)).toBeDefined();
  await applyVmInventory(testDb(), node, [vm(b)]);
  expect(await row(a)).toBeUndefined();
  expect(await row(b)).toBeDefined();
});

test('a guest id another node or a jail holds is not taken over (a warning instead)', async () => {
  const [n1, n2] = [await onlineNode(), await onlineNode()];
  const rid = await insertVm({ nodeId: n1 });
  const [jail] = await freeRids(1);
  await testDb().insertInto('guests').values({ id: jail, type: 'jail', node_id: n1, name: 'j', state: 'running', config: '{}' }).execute();
  const warnings = await applyVmInventory(testDb(), n2, [vm(rid), vm(jail)]);
  expect(warnings).toEqual([
    `vm ${rid} on node ${n2} ignored: guest id ${rid} is already vm ${rid} on node ${n1}`,
    `vm ${jail} on node ${n2} ignored: guest id ${jail} is already jail ${jail} on node ${n1}`,
  ]);
  expect((await row(rid))!.node_id).toBe(n1);
  expect((await row(jail))!.type).toBe('jail');
  await testDb().deleteFrom('guests').where('id', '=', jail).execute();
});

test('while a task is on its way the persisted options stay (state follows); a VM being purged is not re-created', async () => {
  const node = await onlineNode();
  const rid = await insertVm({ nodeId: node, options: { qemuGuestAgent: true } });
  const task = await testDb()
    .insertInto('tasks')
    .values({ kind: 'vm.guest-agent', node_id: node, resource: `vm:${rid}`, payload: '{}', requested_by: 'test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await applyVmInventory(testDb(), node, [vm(rid, { state: 'running' })]);
  expect((await row(rid))!.state).toBe('running');
  expect((await config(rid)).options.qemuGuestAgent).toBe(true);
  // not reported while busy: kept too
  await applyVmInventory(testDb(), node, []);
  expect(await row(rid)).toBeDefined();
  await testDb().updateTable('tasks').set({ status: 'success', finished_at: sql<Date>`now()` }).where('id', '=', task.id).execute();
  await applyVmInventory(testDb(), node, [vm(rid)]);
  expect((await config(rid)).options.qemuGuestAgent).toBe(false);

  const [purged] = await freeRids(1);
  await testDb()
    .insertInto('tasks')
    .values({ kind: 'vm.purge-registration', node_id: node, resource: `vm:${purged}`, payload: '{}', requested_by: 'test' })
    .execute();
  await applyVmInventory(testDb(), node, [vm(rid), vm(purged, { state: 'orphaned' })]);
  expect(await row(purged)).toBeUndefined();
  await testDb().updateTable('tasks').set({ status: 'failed', finished_at: sql<Date>`now()` }).where('resource', '=', `vm:${purged}`).execute();
});
