import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { hashToken } from '#shared/auth/tokens';

/** API tokens over the API (admin): create (secret once), list (never a secret), revoke; 401 with the reason. */
const SECRET = /^hm_[A-Za-z0-9_-]{43}$/;

describe('API tokens over the API', () => {
  test('a token created over the API works with its role, is revoked over the API and then answers 401', async () => {
    const name = `api-${uid()}`;
    const created = await call('POST', '/tokens', { body: { name, role: 'operator', expiresAt: new Date(Date.now() + 86_400_000).toISOString() } });
    expectEnvelope(created, 201, 'token_created');
    const { id, secret } = created.body.data;
    expect(secret).toMatch(SECRET);
    expect(created.body.data).toMatchObject({ name, role: 'operator', nodeId: null, state: 'active', revokedAt: null, lastUsedAt: null });
    const row = await testDb().selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(secret));

    const me = await call('GET', '/auth/whoami', { token: secret });
    expectEnvelope(me, 200);
    expect(me.body.data).toEqual({ name, role: 'operator' });
    expectEnvelope(await call('POST', '/notifications/dismiss-all', { token: secret }), 200);
    // an operator manages no tokens
    expectEnvelope(await call('GET', '/tokens', { token: secret }), 403, 'forbidden');

    const list = await call('GET', '/tokens');
    expectEnvelope(list, 200, 'tokens_listed');
    const listed = list.body.data.find((t: { id: number }) => t.id === id);
    expect(listed).toMatchObject({ id, name, role: 'operator', state: 'active' });
    expect(listed.lastUsedAt).not.toBeNull();
    expect(list.text).not.toContain(secret);
    expect(list.text).not.toContain(row.token_hash);
    expect(Object.keys(listed)).not.toContain('secret');

    const revoked = await call('POST', `/tokens/${id}/revoke`);
    expectEnvelope(revoked, 200, 'token_revoked');
    expect(revoked.body.data).toMatchObject({ id, state: 'revoked' });
    expect(revoked.text).not.toContain(secret);
    const refused = await call('GET', '/auth/whoami', { token: secret });
    expectEnvelope(refused, 401, 'unauthorized');
    expect(refused.body.error).toBe('token revoked');

    const again = await call('POST', `/tokens/${id}/revoke`);
    expectEnvelope(again, 409, 'token_already_revoked');
    expectEnvelope(await call('POST', '/tokens/2147483000/revoke'), 404, 'token_not_found');
  });

  test('an expired token answers 401 with the reason, and is listed expired', async () => {
    const created = await call('POST', '/tokens', {
      body: { name: `exp-${uid()}`, role: 'viewer', expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expectEnvelope(created, 201);
    const { id, secret } = created.body.data;
    expectEnvelope(await call('GET', '/auth/whoami', { token: secret }), 200);
    // its expiry passes (moved into the past rather than waited for)
    await testDb()
      .updateTable('api_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
    const res = await call('GET', '/auth/whoami', { token: secret });
    expectEnvelope(res, 401, 'unauthorized');
    expect(res.body.error).toBe('token expired');
    const listed = (await call('GET', '/tokens')).body.data.find((t: { id: number }) => t.id === id);
    expect(listed.state).toBe('expired');
  });

  test('audit rows name the token created or revoked, and the admin who did it', async () => {
    const admin = await tokenFor('admin');
    const adminRow = await testDb().selectFrom('api_tokens').select(['id', 'name']).where('token_hash', '=', hashToken(admin)).executeTakeFirstOrThrow();
    const created = await call('POST', '/tokens', { token: admin, body: { name: `aud-${uid()}`, role: 'viewer' } });
    const { id } = created.body.data;
    expectEnvelope(await call('POST', `/tokens/${id}/revoke`, { token: admin }), 200);
    const rows = await testDb()
      .selectFrom('audit_log')
      .select(['route', 'resource', 'status', 'token_id', 'token_name'])
      .where('token_id', '=', adminRow.id)
      .where('route', 'like', '/api/tokens%')
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { route: '/api/tokens', resource: `token:${id}`, status: 201, token_id: adminRow.id, token_name: adminRow.name },
      { route: '/api/tokens/{id}/revoke', resource: `token:${id}`, status: 200, token_id: adminRow.id, token_name: adminRow.name },
    ]);
  });

  test('bad input is 400 naming each field; nothing is created', async () => {
    const name = `bad-${uid()}`;
    const past = await call('POST', '/tokens', { body: { name, role: 'viewer', expiresAt: '2001-01-01T00:00:00Z' } });
    expectEnvelope(past, 400, 'validation_failed');
    expect(past.body.error).toContain('expiresAt: must lie in the future');
    const agent = await call('POST', '/tokens', { body: { name, role: 'agent' } });
    expectEnvelope(agent, 400, 'validation_failed');
    expect(agent.body.error).toContain('nodeId: is required for an agent token');
    const role = await call('POST', '/tokens', { body: { name, role: 'root' } });
    expectEnvelope(role, 400, 'validation_failed');
    expect(role.body.error).toMatch(/role/);
    const blank = await call('POST', '/tokens', { body: { name: '   ', role: 'viewer', nodeId: 'n1' } });
    expectEnvelope(blank, 400, 'validation_failed');
    expect(blank.body.error).toContain('name: must not be blank');
    expect(blank.body.error).toContain('nodeId: applies to agent tokens only');
    const rows = await testDb().selectFrom('api_tokens').select('id').where('name', '=', name).execute();
    expect(rows).toEqual([]);
  });
});
