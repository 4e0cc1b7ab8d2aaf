import { request } from 'node:http';
import { apiUrl, call, expectEnvelope, testDb, tokenFor, type ApiResponse } from '../helpers/api.ts';
import { generateToken } from '#shared/auth/tokens';

/**
 * Limits on failed authentication through real HTTP. The test stack allows 5 failed credentials per source in
 * 60 s and exempts 127.0.0.1 (the rest of the suite); these tests send from other loopback addresses, which
 * the gateway reports as the source.
 */
function callFrom(source: string, path: string, authorization: string | null): Promise<ApiResponse> {
  const url = new URL(`${apiUrl()}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', localAddress: source, headers: authorization === null ? {} : { authorization } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers, body, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const bearer = (token: string) => `Bearer ${token}`;
const PATH = '/notifications/count';

describe('failed authentication limit', () => {
  test('the 6th failed credential in the window is 429 with Retry-After and data null; a valid token from that source is still served', async () => {
    const source = '127.0.0.21';
    for (let i = 1; i <= 5; i++) {
      const res = await callFrom(source, PATH, bearer(generateToken()));
      expectEnvelope(res, 401, 'unauthorized');
      expect(res.body.error).toBe('unknown token');
    }
    const limited = await callFrom(source, PATH, bearer(generateToken()));
    expectEnvelope(limited, 429, 'too_many_requests');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // the wait is the Retry-After header's; an error's data is null (the envelope's rule)
    expect(limited.body.data).toBeNull();
    expect(limited.body.error).toContain(source);
    expect(limited.headers.get('content-type')).toMatch(/^application\/json/);

    // a valid token from the limited source is served, and does not lift the limit for bad ones
    const valid = await callFrom(source, PATH, bearer(await tokenFor('viewer')));
    expectEnvelope(valid, 200);
    expectEnvelope(await callFrom(source, PATH, null), 429, 'too_many_requests');
    expectEnvelope(await callFrom(source, PATH, 'Basic abc'), 429, 'too_many_requests');
    // the count is in the store: 6 counted failures, then the missing and malformed headers
    const row = await testDb().selectFrom('auth_failures').selectAll().where('source', '=', source).executeTakeFirstOrThrow();
    expect(row.failures).toBe(8);
  });

  test('sources are limited apart: another address still gets 401', async () => {
    const limitedSource = '127.0.0.22';
    for (let i = 0; i < 6; i++) await callFrom(limitedSource, PATH, bearer(generateToken()));
    expectEnvelope(await callFrom(limitedSource, PATH, bearer(generateToken())), 429);
    const res = await callFrom('127.0.0.23', PATH, bearer(generateToken()));
    expectEnvelope(res, 401, 'unauthorized');
    expect(res.headers.get('retry-after')).toBeNull();
  });

  test('concurrent failures across function invocations are all counted: exactly 5 get 401', async () => {
    const source = '127.0.0.24';
    const all = await Promise.all(Array.from({ length: 10 }, () => callFrom(source, PATH, bearer(generateToken()))));
    const statuses = all.map((r) => r.status).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  });

  test('an exempt source (the suite, 127.0.0.1) is never counted', async () => {
    for (let i = 0; i < 7; i++) expectEnvelope(await call('GET', PATH, { token: generateToken() }), 401);
    expect(await testDb().selectFrom('auth_failures').select('source').where('source', 'in', ['127.0.0.1', '::ffff:127.0.0.1']).execute()).toEqual([]);
  });
});
