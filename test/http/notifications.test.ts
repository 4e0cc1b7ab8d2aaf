import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { activeNotifications } from '../helpers/notification-counts.ts';

/** GET /api/notifications and E24 POST /api/notifications/dismiss-all (with E25 as the witness), over real HTTP. */
let operator: string;
let viewer: string;
const T = uid();
const node = randomUUID();

async function addNotifications(spec: Array<{ scope: 'global' | 'node'; dismissed?: boolean }>): Promise<number[]> {
  const rows = await testDb()
    .insertInto('notifications')
    .values(
      spec.map((s, i) => ({
        kind: 'pool_degraded',
        title: `${s.scope} ${i} ${T}`,
        body: 'zpool tank: one device FAULTED',
        severity: 'warning',
        scope: s.scope,
        node_id: s.scope === 'node' ? node : null,
        dismissed_at: s.dismissed ? new Date(Date.UTC(2024, 5, 1)) : null,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

const stateOf = async (ids: number[]) =>
  (await testDb().selectFrom('notifications').select(['id', 'dismissed_at']).where('id', 'in', ids).orderBy('id').execute()).map((r) => r.dismissed_at);

beforeAll(async () => {
  operator = await tokenFor('operator');
  viewer = await tokenFor('viewer');
  await testDb()
    .insertInto('nodes')
    .values({ id: node, name: `n-${T}`, ip: '10.1.1.1', status: 'member', inventory: {} })
    .execute();
});

describe('GET /notifications', () => {
  test('active ones only, newest first, filtered by scope and node', async () => {
    const [g, n, d] = await addNotifications([{ scope: 'global' }, { scope: 'node' }, { scope: 'node', dismissed: true }]);
    const res = await call('GET', `/notifications?nodeId=${node}`, { token: viewer });
    expectEnvelope(res, 200, 'notifications_listed');
    expect(res.body.data.data.map((x: { id: number }) => x.id)).toEqual([n]);
    const row = await testDb().selectFrom('notifications').selectAll().where('id', '=', n).executeTakeFirstOrThrow();
    expect(res.body.data.data[0]).toEqual({
      id: n,
      kind: 'pool_degraded',
      title: row.title,
      body: row.body,
      severity: 'warning',
      scope: 'node',
      nodeId: node,
      createdAt: row.created_at.toISOString(),
      dismissedAt: null,
    });
    const globals = await call('GET', '/notifications?scope=global&size=100', { token: viewer });
    const gids = globals.body.data.data.map((x: { id: number }) => x.id);
    expect(gids).toContain(g);
    expect(gids).not.toContain(n);
    expect(gids).not.toContain(d);
  });

  test('400 for a bad scope or size, 401 without a token', async () => {
    const res = await call('GET', '/notifications?scope=cluster&size=0', { token: viewer });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('query.scope');
    expect(res.body.error).toContain('query.size');
    expectEnvelope(await call('GET', '/notifications', { token: null }), 401);
  });
});

describe('E24 POST /notifications/dismiss-all', () => {
  test('dismisses every active global notification and only those; E25 counts what is left', async () => {
    const [g1, g2, n1, old] = await addNotifications([{ scope: 'global' }, { scope: 'global' }, { scope: 'node' }, { scope: 'global', dismissed: true }]);
    const countBefore = await activeNotifications(viewer);
    expect(countBefore.answered).toBe(countBefore.stored);

    const res = await call('POST', '/notifications/dismiss-all', { token: operator });
    expectEnvelope(res, 200, 'notifications_dismissed');
    const [s1, s2, s3, s4] = await stateOf([g1, g2, n1, old]);
    expect(s1).toBeInstanceOf(Date);
    expect(s2).toEqual(s1);
    // one dismissal time for the whole sweep: the rows stamped with it are the ones it counted
    const stamped = await testDb()
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('dismissed_at', '=', s1)
      .where('scope', '=', 'global')
      .executeTakeFirstOrThrow();
    expect(res.body.data).toEqual({ dismissed: Number(stamped.n) });
    expect(res.body.data.dismissed).toBeGreaterThanOrEqual(2);
    expect(s3).toBeNull(); // node-scoped stays active
    expect(s4!.toISOString()).toBe('2024-06-01T00:00:00.000Z'); // an old dismissal is not rewritten
    const countAfter = await activeNotifications(viewer);
    expect(countAfter.answered).toBe(countAfter.stored);
    const globalsLeft = await testDb()
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('dismissed_at', 'is', null)
      .where('scope', '=', 'global')
      .where('id', '<=', old)
      .executeTakeFirstOrThrow();
    expect(Number(globalsLeft.n)).toBe(0);
  });

  test('nothing left to dismiss → {dismissed: 0}', async () => {
    await call('POST', '/notifications/dismiss-all', { token: operator });
    const res = await call('POST', '/notifications/dismiss-all', { token: operator });
    expectEnvelope(res, 200, 'notifications_dismissed');
    expect(res.body.data).toEqual({ dismissed: 0 });
  });

  test('accepts an absent, an empty and an empty-object body', async () => {
    for (const opts of [{}, { rawBody: '' }, { body: {} }, { rawBody: '', headers: { 'content-type': 'text/plain' } }]) {
      const [g] = await addNotifications([{ scope: 'global' }]);
      const res = await call('POST', '/notifications/dismiss-all', { token: operator, ...opts });
      expectEnvelope(res, 200, 'notifications_dismissed');
      expect(res.body.data.dismissed).toBeGreaterThanOrEqual(1);
      expect((await stateOf([g]))[0]).toBeInstanceOf(Date);
    }
  });

  test('403 for a viewer and 401 without a token; nothing dismissed', async () => {
    const [g] = await addNotifications([{ scope: 'global' }]);
    const res = await call('POST', '/notifications/dismiss-all', { token: viewer });
    expectEnvelope(res, 403, 'forbidden');
    expectEnvelope(await call('POST', '/notifications/dismiss-all', { token: null }), 401, 'unauthorized');
    expect(await stateOf([g])).toEqual([null]);
  });
});
