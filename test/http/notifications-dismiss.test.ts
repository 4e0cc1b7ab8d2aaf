import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { activeNotifications } from '../helpers/notification-counts.ts';

/** POST /api/notifications/{id}/dismiss: one notification, either scope; E25 counts it out. */
const T = uid();

async function add(scope: 'global' | 'node'): Promise<number> {
  const node = scope === 'node' ? ((await testDb().selectFrom('nodes').select('id').executeTakeFirst())?.id ?? null) : null;
  const row = await testDb()
    .insertInto('notifications')
    .values({
      kind: 'pool_degraded',
      title: `${scope} ${T}`,
      body: 'zpool tank: one device FAULTED',
      severity: 'warning',
      scope: node ? scope : 'global',
      node_id: node,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
const dismissedAt = async (id: number) =>
  (await testDb().selectFrom('notifications').select('dismissed_at').where('id', '=', id).executeTakeFirstOrThrow()).dismissed_at;

test('dismisses exactly the one notification; again keeps its first time', async () => {
  const operator = await tokenFor('operator');
  const [a, b] = [await add('global'), await add('node')];
  const before = await activeNotifications(operator);
  expect(before.answered).toBe(before.stored);
  const res = await call('POST', `/notifications/${b}/dismiss`, { token: operator });
  expectEnvelope(res, 200, 'notification_dismissed');
  expect(res.body.data.id).toBe(b);
  expect(Date.parse(res.body.data.dismissedAt)).toBe((await dismissedAt(b))!.getTime());
  expect(await dismissedAt(a)).toBeNull();
  // E25 counts what the store holds active, and b is no longer active there
  const after = await activeNotifications(operator);
  expect(after.answered).toBe(after.stored);

  const again = await call('POST', `/notifications/${b}/dismiss`, { token: operator });
  expectEnvelope(again, 200, 'notification_dismissed');
  expect(again.body.data.dismissedAt).toBe(res.body.data.dismissedAt);
});

test('an unknown id is 404, a bad one 400; viewers may not dismiss', async () => {
  const operator = await tokenFor('operator');
  expectEnvelope(await call('POST', '/notifications/2147483000/dismiss', { token: operator }), 404, 'notification_not_found');
  const bad = await call('POST', '/notifications/abc/dismiss', { token: operator });
  expectEnvelope(bad, 400, 'validation_failed');
  const id = await add('global');
  expect((await call('POST', `/notifications/${id}/dismiss`, { token: await tokenFor('viewer') })).status).toBe(403);
  expect(await dismissedAt(id)).toBeNull();
});

test('whoami names the caller and its role', async () => {
  for (const role of ['viewer', 'operator', 'admin'] as const) {
    const res = await call('GET', '/auth/whoami', { token: await tokenFor(role) });
    expectEnvelope(res, 200, 'whoami');
    expect(res.body.data.role).toBe(role);
    expect(typeof res.body.data.name).toBe('string');
  }
  expect((await call('GET', '/auth/whoami', { token: null })).status).toBe(401);
});
