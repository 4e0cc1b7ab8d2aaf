import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { createHost, finishTasks, type TestHost } from './zfs-fixtures.ts';

const replace = async (g: string, body: unknown, headers?: Record<string, string>) =>
  call('POST', `/zfs/pools/${g}/replace-device`, { body, token: await tokenFor('operator'), headers });

/**
 * E7 inputs that used to slip through: a device name that is a path (`../dev/da1`) passed the in-use check,
 * and an Idempotency-Key reused with another body answered with the first task.
 */
describe('E7 device names and Idempotency-Key reuse', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await createHost(); // tank = mirror ada1/ada2 (+ spare ada5), backup = ada3; ada4 and ada6 free
  });
  afterEach(async () => {
    await finishTasks(`pool:${host.tank.guid}`);
    await finishTasks(`pool:${host.backup.guid}`);
  });

  test.each(['../dev/ada3', '/dev/../ada3', 'dev/ada3', '/dev/dev/ada3', '..', '/dev/.', 'gpt/../ada3', './ada3'])(
    'new: %s is 400 naming body.new; no task',
    async (name) => {
      const res = await replace(host.tank.guid, { old: 'ada1', new: name });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^body\.new: /);
      expect(await testDb().selectFrom('tasks').select('id').where('resource', '=', `pool:${host.tank.guid}`).where('status', '=', 'queued').execute()).toEqual(
        [],
      );
    },
  );

  test('old: ../dev/ada1 is 400 naming body.old', async () => {
    const res = await replace(host.tank.guid, { old: '../dev/ada1', new: 'ada4' });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^body\.old: /);
  });

  test('/dev/ada3 is the device ada3: in use by the other pool (409), and /dev/ada4 is accepted as ada4', async () => {
    const inUse = await replace(host.tank.guid, { old: 'ada1', new: '/dev/ada3' });
    expectEnvelope(inUse, 409, 'device_in_use');
    const ok = await replace(host.tank.guid, { old: '/dev/ada1', new: '/dev/ada4' });
    expectEnvelope(ok, 202);
    expect((await testDb().selectFrom('tasks').select('payload').where('id', '=', ok.body.data.id).executeTakeFirstOrThrow()).payload).toMatchObject({
      new: 'ada4',
    });
  });

  test('GEOM labels are device names: gpt/disk9 is accepted as new, gpt/disk3 as old is judged against the pool (409, not 400)', async () => {
    const notInPool = await replace(host.tank.guid, { old: '/dev/gpt/disk3', new: 'ada4' });
    expectEnvelope(notInPool, 409, 'device_not_in_pool');
    const ok = await replace(host.tank.guid, { old: 'ada1', new: 'gpt/disk9' });
    expectEnvelope(ok, 202);
    expect((await testDb().selectFrom('tasks').select('payload').where('id', '=', ok.body.data.id).executeTakeFirstOrThrow()).payload).toMatchObject({
      new: 'gpt/disk9',
    });
  });

  test('an Idempotency-Key reused with a different body is 409 idempotency_key_reused; the same body (any key order) is the first task', async () => {
    const key = `k-${uid()}`;
    const first = await replace(host.tank.guid, { old: 'ada1', new: 'ada4' }, { 'idempotency-key': key });
    expectEnvelope(first, 202);
    const same = await replace(host.tank.guid, { new: 'ada4', old: 'ada1' }, { 'idempotency-key': key });
    expectEnvelope(same, 202);
    expect(same.body.data.id).toBe(first.body.data.id);
    const other = await replace(host.tank.guid, { old: 'ada2', new: 'ada6' }, { 'idempotency-key': key });
    expectEnvelope(other, 409, 'idempotency_key_reused');
    expect(other.body.error).toContain(`task ${first.body.data.id}`);
    expect(await testDb().selectFrom('tasks').select('id').where('idempotency_key', '=', key).execute()).toHaveLength(1);
  });
});
