import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { stackQueue } from '../helpers/agent.ts';
import { sampleInventory } from './zfs-fixtures.ts';

/**
 * A node may not take over another node's pool by reporting its GUID: the report is refused for that GUID
 * (and reported), and E7 keeps queueing work for the pool's real host. Through the real agent endpoints.
 */
describe('pool GUIDs belong to the node that reports them', () => {
  beforeAll(() => stackQueue());

  const register = (token: string, id: string, inventory: unknown) =>
    call('POST', '/agent/register', {
      token,
      body: { id, name: `host-${id.slice(0, 6)}`, ip: '192.0.2.9', inventory, heartbeatIntervalS: 5, agentVersion: '0.1.0' },
    });

  test("a pending node reporting node A's pool GUID with device evil0 takes nothing; an empty report deletes nothing", async () => {
    const a = randomUUID();
    const b = randomUUID();
    const tokenA = await tokenFor('agent', a);
    const tokenB = await tokenFor('agent', b);
    const inv = sampleInventory();
    const tank = inv.pools[0];
    expect((await register(tokenA, a, inv)).status).toBe(201);
    await testDb().updateTable('nodes').set({ status: 'member' }).where('id', '=', a).execute();
    expect((await register(tokenB, b, { ...sampleInventory(), pools: [], disks: [] })).status).toBe(201); // B stays pending

    const stolen = { ...tank, vdevs: [{ name: 'evil0', type: 'disk', state: 'ONLINE', guid: '42' }] };
    const report = await call('PUT', '/agent/inventory', { token: tokenB, body: { inventory: { ...sampleInventory(), pools: [stolen], disks: [] } } });
    expectEnvelope(report, 200, 'inventory_recorded');

    const pool = await testDb().selectFrom('pools').selectAll().where('guid', '=', tank.guid).executeTakeFirstOrThrow();
    expect(pool.node_id).toBe(a);
    const devices = await testDb().selectFrom('pool_devices').select(['name', 'node_id']).where('pool_guid', '=', tank.guid).execute();
    expect(devices.map((d) => d.name)).not.toContain('evil0');
    expect(new Set(devices.map((d) => d.node_id))).toEqual(new Set([a]));
    const note = await testDb().selectFrom('notifications').selectAll().where('kind', '=', 'pool_guid_refused').where('node_id', '=', b).executeTakeFirst();
    expect(note?.body).toContain(tank.guid);

    // B reports no pools at all: A's pool stays
    expectEnvelope(await call('PUT', '/agent/inventory', { token: tokenB, body: { inventory: { ...sampleInventory(), pools: [], disks: [] } } }), 200);
    expect((await testDb().selectFrom('pools').select('node_id').where('guid', '=', tank.guid).executeTakeFirst())?.node_id).toBe(a);

    // E7 on the pool queues work for A, the pool's host
    const e7 = await call('POST', `/zfs/pools/${tank.guid}/replace-device`, { token: await tokenFor('operator'), body: { old: 'ada1', new: 'ada4' } });
    expectEnvelope(e7, 202);
    const task = await testDb()
      .selectFrom('tasks')
      .select(['node_id', 'payload'])
      .where('id', '=', e7.body.data.taskId ?? Number(e7.headers.get('location')!.split('/').pop()))
      .executeTakeFirstOrThrow();
    expect(task.node_id).toBe(a);
  });

  test('a pool its holder no longer reports has moved and follows the node that reports it now', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const tokenA = await tokenFor('agent', a);
    const tokenB = await tokenFor('agent', b);
    const inv = sampleInventory();
    const backup = inv.pools[1];
    expect((await register(tokenA, a, inv)).status).toBe(201);
    expect((await register(tokenB, b, { ...sampleInventory(), pools: [], disks: [] })).status).toBe(201);
    // zpool export on A …
    expectEnvelope(await call('PUT', '/agent/inventory', { token: tokenA, body: { inventory: { ...inv, pools: [inv.pools[0]] } } }), 200);
    // … and import on B
    expectEnvelope(await call('PUT', '/agent/inventory', { token: tokenB, body: { inventory: { ...sampleInventory(), pools: [backup], disks: [] } } }), 200);
    expect((await testDb().selectFrom('pools').select('node_id').where('guid', '=', backup.guid).executeTakeFirst())?.node_id).toBe(b);
  });
});
