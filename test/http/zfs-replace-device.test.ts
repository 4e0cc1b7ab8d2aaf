import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { createHost, finishTasks, guid, sampleInventory, type TestHost } from './zfs-fixtures.ts';

const replace = async (g: string, body: unknown, opts: { token?: string | null; headers?: Record<string, string> } = {}) =>
  call('POST', `/zfs/pools/${g}/replace-device`, { body, token: opts.token === undefined ? await tokenFor('operator') : opts.token, headers: opts.headers });

describe('E7 POST /zfs/pools/{guid}/replace-device (validation and task)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await createHost();
  });
  afterEach(async () => {
    await finishTasks(`pool:${host.tank.guid}`);
    await finishTasks(`pool:${host.backup.guid}`);
  });

  test('202 with the queued task, Location, and the task persisted with zpool arguments', async () => {
    const res = await replace(host.tank.guid, { old: 'ada1', new: 'ada4' });
    expectEnvelope(res, 202, 'device_replacement_queued');
    const task = res.body.data;
    expect(task).toMatchObject({ kind: 'pool.replace-device', nodeId: host.nodeId, resource: `pool:${host.tank.guid}`, status: 'queued', exclusive: true });
    expect(res.headers.get('location')).toBe(`/api/tasks/${task.id}`);
    const row = await testDb().selectFrom('tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.payload).toEqual({ pool: host.tank.name, guid: host.tank.guid, old: 'ada1', new: 'ada4' });
    expect(row.node_id).toBe(host.nodeId);
    const viaTasks = await call('GET', `/tasks/${task.id}`, { token: await tokenFor('viewer') });
    expectEnvelope(viaTasks, 200);
    expect(viaTasks.body.data.id).toBe(task.id);
  });

  test('one active replacement per pool: a second is 409 resource_busy; another pool is not blocked', async () => {
    expectEnvelope(await replace(host.tank.guid, { old: 'ada1', new: 'ada4' }), 202);
    const second = await replace(host.tank.guid, { old: 'ada2', new: 'ada6' });
    expectEnvelope(second, 409, 'resource_busy');
    expect(second.body.error).toContain(`pool:${host.tank.guid}`);
    expectEnvelope(await replace(host.backup.guid, { old: 'ada3', new: 'ada6' }), 202);
  });

  test('a repeated Idempotency-Key answers with the first task', async () => {
    const key = `k-${uid()}`;
    const first = await replace(host.tank.guid, { old: 'ada2', new: 'ada4' }, { headers: { 'idempotency-key': key } });
    expectEnvelope(first, 202);
    const again = await replace(host.tank.guid, { old: 'ada2', new: 'ada4' }, { headers: { 'idempotency-key': key } });
    expectEnvelope(again, 202);
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  test('the old device may be named by /dev path or by its vdev GUID', async () => {
    const byPath = await replace(host.tank.guid, { old: '/dev/ada2', new: '/dev/ada6' });
    expectEnvelope(byPath, 202);
    let row = await testDb().selectFrom('tasks').select('payload').where('id', '=', byPath.body.data.id).executeTakeFirstOrThrow();
    expect(row.payload).toMatchObject({ old: 'ada2', new: 'ada6' });
    await finishTasks(`pool:${host.tank.guid}`);
    const ada1Guid = host.tank.vdevs[0].children![0].guid!;
    const byGuid = await replace(host.tank.guid, { old: ada1Guid, new: 'ada6' });
    expectEnvelope(byGuid, 202);
    row = await testDb().selectFrom('tasks').select('payload').where('id', '=', byGuid.body.data.id).executeTakeFirstOrThrow();
    expect(row.payload).toMatchObject({ old: 'ada1', new: 'ada6' });
  });

  test('a missing (UNAVAIL) device is handed to zpool by its GUID', async () => {
    const inventory = sampleInventory();
    const missing = { name: 'ada1p3', type: 'disk' as const, state: 'UNAVAIL', guid: guid() };
    inventory.pools[0].vdevs[0].children![0] = missing;
    const degraded = await createHost({ inventory });
    const res = await replace(degraded.tank.guid, { old: 'ada1p3', new: 'ada4' });
    expectEnvelope(res, 202);
    const row = await testDb().selectFrom('tasks').select('payload').where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(row.payload).toMatchObject({ old: missing.guid, new: 'ada4' });
    await finishTasks(`pool:${degraded.tank.guid}`);
  });

  test("the pool's own available hot spare may replace a device", async () => {
    expectEnvelope(await replace(host.tank.guid, { old: 'ada1', new: 'ada5' }), 202);
  });

  test('404 pool_not_found for an unknown pool GUID', async () => {
    const unknown = guid();
    const res = await replace(unknown, { old: 'ada1', new: 'ada4' });
    expectEnvelope(res, 404, 'pool_not_found');
    expect(res.body.error).toBe(`pool ${unknown} does not exist`);
  });

  test('409 device_not_in_pool when old is not a device of the pool (another pool’s disk, a vdev, a free disk)', async () => {
    for (const old of ['ada3', 'mirror-0', 'ada4', 'nosuchdisk']) {
      const res = await replace(host.tank.guid, { old, new: 'ada6' });
      expectEnvelope(res, 409, 'device_not_in_pool');
      expect(res.body.error).toContain(`body.old: device ${old} is not in pool ${host.tank.name}`);
    }
  });

  test('409 device_in_use when new is in any pool of the node (also the same device)', async () => {
    for (const [n, pool] of [
      ['ada3', host.backup.name],
      ['ada2', host.tank.name],
      ['ada1', host.tank.name],
      ['/dev/ada3', host.backup.name],
    ]) {
      const res = await replace(host.tank.guid, { old: 'ada1', new: n });
      expectEnvelope(res, 409, 'device_in_use');
      expect(res.body.error).toContain(`body.new: device ${n} is already in use by pool ${pool}`);
    }
    // another pool's hot spare is in use by that pool
    const res = await replace(host.backup.guid, { old: 'ada3', new: 'ada5' });
    expectEnvelope(res, 409, 'device_in_use');
  });

  test("a device of another node's pool is not in use on this node", async () => {
    const inventory = sampleInventory();
    inventory.pools[1].vdevs = [{ name: 'ada7', type: 'disk', state: 'ONLINE' }];
    await createHost({ inventory });
    expectEnvelope(await replace(host.backup.guid, { old: 'ada3', new: 'ada7' }), 202);
  });

  test('400 naming each bad field', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{}, ['body.old: is required', 'body.new: is required']],
      [{ old: '', new: 'x'.repeat(25) }, ['body.old:', 'body.new:']],
      [{ old: 'ada1', new: 'ada4', force: true }, ['body.force: is not an accepted field']],
      [{ old: 1, new: ['ada4'] }, ['body.old: must be string', 'body.new: must be string']],
      [{ old: '-f', new: 'ada4' }, ['body.old: must match pattern']],
      [{ old: 'ada 1', new: 'ada4;rm' }, ['body.old:', 'body.new:']],
    ];
    for (const [body, fields] of cases) {
      const res = await replace(host.tank.guid, body);
      expectEnvelope(res, 400, 'validation_failed');
      for (const f of fields) expect(res.body.error).toContain(f);
    }
    const exactly24 = await replace(host.tank.guid, { old: 'ada1', new: 'd'.repeat(24) });
    expectEnvelope(exactly24, 202);
  });

  test('400 for a malformed pool GUID in the path, and for a malformed JSON body', async () => {
    const res = await replace('tank', { old: 'ada1', new: 'ada4' });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('path.guid');
    const bad = await call('POST', `/zfs/pools/${host.tank.guid}/replace-device`, { rawBody: '{"old":', token: await tokenFor('operator') });
    expectEnvelope(bad, 400);
  });

  test('401 without a token, 403 for viewer and agent tokens', async () => {
    expectEnvelope(await replace(host.tank.guid, { old: 'ada1', new: 'ada4' }, { token: null }), 401);
    expectEnvelope(await replace(host.tank.guid, { old: 'ada1', new: 'ada4' }, { token: await tokenFor('viewer') }), 403, 'forbidden');
    expectEnvelope(await replace(host.tank.guid, { old: 'ada1', new: 'ada4' }, { token: await tokenFor('agent', host.nodeId) }), 403, 'forbidden');
    const rows = await testDb().selectFrom('tasks').select('id').where('resource', '=', `pool:${host.tank.guid}`).where('status', '=', 'queued').execute();
    expect(rows).toHaveLength(0);
  });
});
