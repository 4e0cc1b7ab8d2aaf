import { sql } from 'kysely';
import { adminToken, call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { createToken, generateToken } from '#shared/auth/tokens';
import { runAudited, type AuditScope } from '#store/audit-scope';
import { inTransaction } from '#store/tx';
import { auditRetentionDays, pruneAudit } from '#domain/audit/retention';
import { createHost } from './zfs-fixtures.ts';

/** Strings sent where secrets go; no audit row may ever hold one. */
const MARKER = `SECRETMARKER${uid()}`;
const TOKEN_MARKER = `hm_${'Q'.repeat(20)}${MARKER.slice(0, 23).padEnd(23, 'Z')}`;
const MUTATING = ['post', 'put', 'patch', 'delete'];

interface Operation {
  method: string;
  route: string;
}

async function mutatingOperations(): Promise<Operation[]> {
  const res = await call('GET', '/openapi.json', { token: await tokenFor('viewer') });
  expectEnvelope(res, 200, 'openapi');
  const paths = res.body.data.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([route, ops]) =>
    Object.keys(ops)
      .filter((m) => MUTATING.includes(m))
      .map((m) => ({ method: m.toUpperCase(), route })),
  );
}

/** A concrete path for a route template: every parameter 1. */
const concrete = (route: string) => route.replace(/^\/api/, '').replace(/\{[^}]+\}/g, '1');

const auditRows = (tokenId: number) => testDb().selectFrom('audit_log').selectAll().where('token_id', '=', tokenId).orderBy('id').execute();

describe('audit log', () => {
  test('every mutating route of the OpenAPI document records an audit row per call, and none holds a secret', async () => {
    const { id, token } = await createToken(testDb(), { name: `audit walker ${uid()}`, role: 'admin' });
    const operations = await mutatingOperations();
    expect(operations.length).toBeGreaterThan(10);
    // the token revoke route gets a token of its own to revoke: id 1 is the suite's admin token
    const victim = await createToken(testDb(), { name: `audit victim ${uid()}`, role: 'viewer' });
    const path = (route: string) => (route === '/api/tokens/{id}/revoke' ? `/tokens/${victim.id}/revoke` : concrete(route));
    for (const op of operations) {
      const res = await call(op.method, path(op.route), {
        token,
        headers: { 'idempotency-key': `audit-${uid()}`, 'x-api-key': MARKER },
        body: { password: MARKER, userData: `#cloud-config\npassword: ${MARKER}`, key: MARKER, token: MARKER },
      });
      expect(res.status).toBeLessThan(500);
    }
    const rows = await auditRows(id);
    const seen = new Set(rows.map((r) => `${r.method} ${r.route}`));
    const missing = operations.filter((op) => !seen.has(`${op.method} ${op.route}`));
    expect(missing).toEqual([]);
    for (const r of rows) {
      expect(r.status).toEqual(expect.any(Number));
      expect(r.token_name).toMatch(/^audit walker /);
      expect(r.role).toBe('admin');
    }
    const all = await testDb().selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(all)).not.toContain(MARKER);
  });

  test('a committed mutation is recorded with its status, resource and caller', async () => {
    const { id, token } = await createToken(testDb(), { name: `audit note ${uid()}`, role: 'operator' });
    const res = await call('POST', '/cluster/notes', { token, body: { title: 'audited', content: MARKER } });
    expectEnvelope(res, 201, 'cluster_note_created');
    const [row] = await auditRows(id);
    expect(row).toMatchObject({ method: 'POST', route: '/api/cluster/notes', status: 201, role: 'operator', task_id: null });
    expect(row.source_ip).not.toBe('');
    expect(JSON.stringify(row)).not.toContain(MARKER);
  });

  test('a mutation that creates a task records the task and its resource', async () => {
    const { nodeId } = await createHost();
    const { id, token } = await createToken(testDb(), { name: `audit task ${uid()}`, role: 'admin' });
    const res = await call('PUT', `/system/tunables?nodeId=${nodeId}`, { token, body: { name: 'kern.maxfiles', value: '65536' } });
    expectEnvelope(res, 200, 'tunable_set');
    const [row] = await auditRows(id);
    expect(row).toMatchObject({ method: 'PUT', route: '/api/system/tunables', status: 200, task_id: res.body.data.taskId, resource: 'tunable:kern.maxfiles' });
  });

  test('refused requests are recorded: 401 without naming the token, 403 naming the caller, also on reads', async () => {
    const before = await testDb()
      .selectFrom('audit_log')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirstOrThrow();
    const since = Number(before.max ?? 0);
    expectEnvelope(await call('GET', '/tasks', { token: TOKEN_MARKER }), 401);
    expectEnvelope(await call('GET', '/tasks', { token: generateToken() }), 401);
    const { id, token } = await createToken(testDb(), { name: `audit viewer ${uid()}`, role: 'viewer' });
    expectEnvelope(await call('GET', '/audit', { token }), 403, 'forbidden');
    expectEnvelope(await call('GET', '/tasks', { token }), 200);
    const rows = await testDb().selectFrom('audit_log').selectAll().where('id', '>', since).execute();
    const anonymous = rows.filter((r) => r.route === '/api/tasks' && r.status === 401 && r.token_id === null);
    expect(anonymous.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(rows)).not.toContain(TOKEN_MARKER);
    const mine = rows.filter((r) => r.token_id === id);
    // the 200 read is not audited; the refused one is
    expect(mine).toEqual([expect.objectContaining({ method: 'GET', route: '/api/audit', status: 403, role: 'viewer' })]);
  });

  test('GET /api/audit filters by token, route, outcome, resource and time, and pages', async () => {
    const { id, token } = await createToken(testDb(), { name: `audit filters ${uid()}`, role: 'operator' });
    for (let i = 0; i < 3; i++) expectEnvelope(await call('POST', '/cluster/notes', { token, body: { title: `n${i}` } }), 201);
    expectEnvelope(await call('POST', '/cluster/notes', { token, body: { title: '' } }), 400);
    expectEnvelope(await call('GET', '/audit', { token }), 403);
    const list = (q: string) => call('GET', `/audit?tokenId=${id}&${q}`, { token: adminToken() });

    const all = await list('size=2');
    expectEnvelope(all, 200, 'audit_listed');
    expect(all.body.data).toMatchObject({ total: 5, last_page: 3 });
    expect(all.body.data.data).toHaveLength(2);
    expect(all.body.data.data[0].id).toBeGreaterThan(all.body.data.data[1].id);
    // camelCase like every other answer of the API (the store's columns are snake_case)
    expect(Object.keys(all.body.data.data[0]).sort()).toEqual(
      ['at', 'id', 'method', 'requestId', 'resource', 'role', 'route', 'sourceIp', 'status', 'taskId', 'tokenId', 'tokenName'].sort(),
    );
    expect(all.body.data.data[0]).toMatchObject({ tokenId: id, tokenName: expect.stringContaining('audit filters'), taskId: null });
    expect(all.body.data.data[0].sourceIp).not.toBe('');

    const created = await list(`route=${encodeURIComponent('/api/cluster/notes')}&outcome=201`);
    expect(created.body.data.total).toBe(3);
    expect((await list('outcome=4xx')).body.data.data.map((r: { status: number }) => r.status).sort()).toEqual([400, 403]);
    expect((await list('outcome=403')).body.data.data).toEqual([expect.objectContaining({ route: '/api/audit', tokenId: id, role: 'operator' })]);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list(`from=${encodeURIComponent(future)}`)).body.data.total).toBe(0);
    expect((await list(`to=${encodeURIComponent(future)}`)).body.data.total).toBe(5);

    const { token: adminTok, id: adminId } = await createToken(testDb(), { name: `audit resource ${uid()}`, role: 'admin' });
    expectEnvelope(await call('DELETE', '/vm/987654/registration', { token: adminTok }), 404);
    const byResource = await call('GET', `/audit?resource=987654&tokenId=${adminId}`, { token: adminTok });
    expect(byResource.body.data.data).toEqual([expect.objectContaining({ method: 'DELETE', status: 404 })]);
    expect(byResource.body.data.data[0].resource).toContain('987654');
  });

  test('a refused mutation whose path holds NUL is still recorded, without the value, naming its valid caller', async () => {
    const { id, token } = await createToken(testDb(), { name: `audit nul ${uid()}`, role: 'admin' });
    expectEnvelope(await call('DELETE', '/vm/4242%00/registration', { token }), 400, 'validation_failed');
    // the input check runs before the token is looked up; the row still names the token's holder
    expect(await auditRows(id)).toEqual([
      expect.objectContaining({
        method: 'DELETE',
        route: '/api/vm/{rid}/registration',
        status: 400,
        token_name: expect.stringContaining('audit nul'),
        role: 'admin',
        resource: '',
      }),
    ]);
  });

  test('a non-canonical id (400 before authentication) names the caller of a valid token; an invalid token names none', async () => {
    const { id, token } = await createToken(testDb(), { name: `audit canonical ${uid()}`, role: 'operator' });
    expectEnvelope(await call('PUT', '/jail/0101/hardware/cpu', { token, body: { cores: 1 } }), 400);
    expect(await auditRows(id)).toEqual([
      expect.objectContaining({ method: 'PUT', route: '/api/jail/{ctid}/hardware/cpu', status: 400, role: 'operator', resource: 'ctid:0101' }),
    ]);
    const ctid = `0${Math.floor(Math.random() * 1e8) + 1}`;
    expectEnvelope(await call('PUT', `/jail/${ctid}/hardware/cpu`, { token: generateToken(), body: { cores: 1 } }), 400);
    const anonymous = await testDb().selectFrom('audit_log').selectAll().where('resource', '=', `ctid:${ctid}`).execute();
    expect(anonymous).toEqual([expect.objectContaining({ status: 400, token_id: null, role: '' })]);
  });

  test("a refused request's nodeId query and path values are kept only as identifiers: no planted text", async () => {
    const { id, token } = await createToken(testDb(), { name: `audit spoof ${uid()}`, role: 'viewer' });
    const spoof = encodeURIComponent('x\nid:1 route:/api/auth/tokens status:200');
    expectEnvelope(await call('DELETE', `/vm/1/registration?nodeId=${spoof}`, { token }), 403);
    expectEnvelope(await call('DELETE', `/vm/${spoof}/registration`, { token }), 403);
    const rows = await auditRows(id);
    expect(rows.map((r) => [r.status, r.resource])).toEqual([
      [403, 'rid:1'],
      [403, ''],
    ]);
    const good = '5f0b6c1e-3a42-4d8b-9c7e-1a2b3c4d5e02';
    expectEnvelope(await call('DELETE', `/vm/1/registration?nodeId=${good}`, { token }), 403);
    expect((await auditRows(id)).at(-1)?.resource).toBe(`rid:1 node:${good}`);
  });

  test('bad filters are a 400 naming the field', async () => {
    const outcome = await call('GET', '/audit?outcome=abc');
    expectEnvelope(outcome, 400, 'validation_failed');
    expect(outcome.body.error).toContain('outcome');
    const from = await call('GET', '/audit?from=yesterday');
    expectEnvelope(from, 400, 'validation_failed');
    expect(from.body.error).toContain('from');
    const month = await call('GET', `/audit?to=${encodeURIComponent('2026-13-01T00:00:00Z')}`);
    expectEnvelope(month, 400, 'validation_failed');
    expect(month.body.error).toContain('query.to');
    const order = await call('GET', `/audit?from=${encodeURIComponent('2026-02-01T00:00:00Z')}&to=${encodeURIComponent('2026-01-01T00:00:00Z')}`);
    expectEnvelope(order, 400, 'validation_failed');
    expect(order.body.error).toContain('query.to');
  });

  test('the audit row commits with the change, or not at all', async () => {
    const db = testDb();
    const requestId = `audit-tx-${uid()}`;
    const scope = (): AuditScope => ({
      entry: { tokenId: null, tokenName: 'tx test', role: 'admin', sourceIp: '', method: 'POST', route: '/api/cluster/notes', resource: '', requestId },
      attemptTasks: [],
    });
    const title = `tx ${uid()}`;
    await expect(
      runAudited(scope(), () =>
        inTransaction(db, async (trx) => {
          await trx.insertInto('cluster_notes').values({ title, content: '' }).execute();
          throw new Error('rolled back');
        }),
      ),
    ).rejects.toThrow('rolled back');
    expect(await db.selectFrom('audit_log').select('id').where('request_id', '=', requestId).execute()).toEqual([]);
    expect(await db.selectFrom('cluster_notes').select('id').where('title', '=', title).execute()).toEqual([]);

    const s = scope();
    await runAudited(s, async () => {
      await inTransaction(db, (trx) => trx.insertInto('cluster_notes').values({ title, content: '' }).execute());
      // a later transaction of the same request does not record a second row
      await inTransaction(db, (trx) => trx.selectFrom('cluster_notes').select('id').execute());
    });
    const rows = await db.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).execute();
    expect(rows).toEqual([expect.objectContaining({ id: s.recordedId, status: null })]);
    await db.deleteFrom('cluster_notes').where('title', '=', title).execute();
  });

  test('an accepted token has its last use noted', async () => {
    const { id, token } = await createToken(testDb(), { name: `audit last use ${uid()}`, role: 'viewer' });
    expectEnvelope(await call('GET', '/tasks', { token }), 200);
    const row = await testDb()
      .selectFrom('api_tokens')
      .select(['last_used_at', sql<Date>`now()`.as('now')])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).toBeInstanceOf(Date);
    expect(Math.abs(row.now.getTime() - row.last_used_at!.getTime())).toBeLessThan(60_000);
  });

  test('retention: 180 days unless HM_AUDIT_RETENTION_DAYS says otherwise (a bad value refused by name); older rows are pruned', async () => {
    expect(auditRetentionDays({})).toBe(180);
    expect(auditRetentionDays({ HM_AUDIT_RETENTION_DAYS: '30' })).toBe(30);
    expect(() => auditRetentionDays({ HM_AUDIT_RETENTION_DAYS: 'x' })).toThrow('HM_AUDIT_RETENTION_DAYS="x" is not allowed: expected an integer 1–36500');
    const db = testDb();
    const requestId = `audit-prune-${uid()}`;
    const row = (daysAgo: number) => ({
      method: 'POST',
      route: '/api/cluster/notes',
      status: 201,
      request_id: requestId,
      at: new Date(Date.now() - daysAgo * 86_400_000),
    });
    await db
      .insertInto('audit_log')
      .values([row(181), row(179)])
      .execute();
    expect(await pruneAudit(db)).toBeGreaterThanOrEqual(1);
    const left = await db.selectFrom('audit_log').select('at').where('request_id', '=', requestId).execute();
    expect(left).toHaveLength(1);
    expect(Date.now() - left[0].at.getTime()).toBeLessThan(180 * 86_400_000);
  });
});
