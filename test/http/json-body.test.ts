import { call, expectEnvelope, tokenFor } from '../helpers/api.ts';

/**
 * The body parser's edge cases, all in the spec's 400 envelope (never Middy's own 415/422): a prototype key,
 * a blank body sent as JSON, a `+json` content type, and path, query and body
 * errors reported together in one response.
 */
describe('JSON bodies', () => {
  let operator: string;
  beforeAll(async () => {
    operator = await tokenFor('operator');
  });

  test('a __proto__ key is refused as malformed JSON', async () => {
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, rawBody: '{"ids": [1], "__proto__": {"x": 1}}' });
    expectEnvelope(res, 400, 'malformed_json');
    expect(res.body.error).toContain('__proto__');
  });

  test('a blank body sent as JSON is a missing body', async () => {
    for (const rawBody of ['', '   ', 'null']) {
      const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, rawBody });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^body: is required/);
    }
  });

  test('a +json content type with parameters is parsed', async () => {
    const vnd = await call('POST', '/cluster/notes/bulk-delete', {
      token: operator,
      body: { ids: [0] },
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' },
    });
    expectEnvelope(vnd, 400, 'validation_failed');
    expect(vnd.body.error).toContain('body.ids[0]');
  });

  test('path and body errors come back together', async () => {
    const res = await call('PUT', '/jail/0/hardware/cpu', { token: operator, body: { extra: true } });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('path.ctid');
    expect(res.body.error).toContain('body.extra');
  });
});
