import { call, expectEnvelope, tokenFor, testDb } from '../helpers/api.ts';
import { createToken, generateToken } from '#shared/auth/tokens';

describe('pipeline: auth, envelope, unknown routes', () => {
  test('401 without Authorization header', async () => {
    const res = await call('GET', '/notifications/count', { token: null });
    expectEnvelope(res, 401, 'unauthorized');
    expect(res.body.error).toMatch(/missing Authorization/);
    expect(res.body.data).toBeNull();
  });

  test('401 for a malformed header and a malformed token', async () => {
    expectEnvelope(await call('GET', '/notifications/count', { headers: { authorization: 'Basic abc' }, token: null }), 401);
    const res = await call('GET', '/notifications/count', { token: 'not-a-token' });
    expectEnvelope(res, 401);
    expect(res.body.error).toBe('malformed token');
  });

  test('401 for an unknown token', async () => {
    const res = await call('GET', '/notifications/count', { token: generateToken() });
    expectEnvelope(res, 401);
    expect(res.body.error).toBe('unknown token');
  });

  test('401 for an expired token', async () => {
    const { token } = await createToken(testDb(), { name: 'expired', role: 'admin', expiresAt: new Date(Date.now() - 1000) });
    const res = await call('GET', '/notifications/count', { token });
    expectEnvelope(res, 401);
    expect(res.body.error).toBe('token expired');
  });

  test('401 for a revoked token, which worked before', async () => {
    const { id, token } = await createToken(testDb(), { name: 'to-revoke', role: 'viewer' });
    expectEnvelope(await call('GET', '/notifications/count', { token }), 200);
    await testDb().updateTable('api_tokens').set({ revoked_at: new Date() }).where('id', '=', id).execute();
    const res = await call('GET', '/notifications/count', { token });
    expectEnvelope(res, 401);
    expect(res.body.error).toBe('token revoked');
  });

  test('403 for an agent token on an operator endpoint', async () => {
    const res = await call('GET', '/notifications/count', { token: await tokenFor('agent') });
    expectEnvelope(res, 403, 'forbidden');
  });

  test('unknown /api route is a 404 envelope naming the route', async () => {
    const res = await call('GET', '/no/such/thing');
    expectEnvelope(res, 404, 'route_not_found');
    expect(res.body.error).toContain('GET /api/no/such/thing');
  });

  test('OpenAPI document lists the endpoints with their schemas', async () => {
    const res = await call('GET', '/openapi.json', { token: await tokenFor('viewer') });
    expectEnvelope(res, 200, 'openapi');
    expect(res.body.data.openapi).toBe('3.1.0');
    expect(res.body.data.paths['/api/notifications/count'].get.summary).toMatch(/^E25\./);
  });
});
