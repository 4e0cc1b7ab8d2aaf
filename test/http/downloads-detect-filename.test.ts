/**
 * E8 POST /api/utilities/downloads/detect-filename through serverless-offline. The test stack admits 127.0.0.2
 * only (HM_PROBE_ALLOW_CIDRS, test-only): the "allowed" sources listen there; the refused ones listen on
 * 127.0.0.1 / ::1 / 0.0.0.0 and advertise `leaked.iso`, so a function that skipped a check would answer 200.
 */
import { call, expectEnvelope, tokenFor } from '../helpers/api.ts';
import { advertising, closedPort, httpSource, httpsSource, type Handler, type Source } from '../helpers/download-sources.ts';
import fc from 'fast-check';
import { refusedV4, refusedV6, v4CarriedInV6 } from '../helpers/fuzz/addresses.ts';

const ROUTE = '/utilities/downloads/detect-filename';
const ALLOWED = '127.0.0.2';
const probe = (body: unknown, token?: string | null) => call('POST', ROUTE, { body, token });

const sources: Source[] = [];
async function source(handler: Handler, host = ALLOWED): Promise<Source> {
  const s = await httpSource(host, handler);
  sources.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(sources.map((s) => s.close()));
});

describe('E8 filename probe: what the source advertises', () => {
  test('200 with the Content-Disposition filename (filename* first), from a HEAD request', async () => {
    const s = await source((_req, res) => {
      res.writeHead(200, { 'content-disposition': `attachment; filename="fallback.iso"; filename*=UTF-8''FreeBSD-14.1-%C3%A9dition.iso` });
      res.end();
    });
    const res = await probe({ url: `${s.origin}/download?id=7` });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data).toEqual({ filename: 'FreeBSD-14.1-édition.iso' });
    expect(s.seen).toEqual([{ method: 'HEAD', path: '/download?id=7', range: undefined, host: s.origin.replace('http://', '') }]);
  });

  test('without Content-Disposition: the last path segment, percent-decoded', async () => {
    const s = await source((_req, res) => res.end());
    const res = await probe({ url: `${s.origin}/releases/FreeBSD%2014.1%20disc1.iso` });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data.filename).toBe('FreeBSD 14.1 disc1.iso');
  });

  test('a path in the advertised name is stripped; control characters removed', async () => {
    const s = await source((_req, res) => {
      res.writeHead(200, { 'content-disposition': `attachment; filename*=UTF-8''..%2F..%2Fetc%2Fcron.d%2Fevil%0D%0A.sh` });
      res.end();
    });
    const res = await probe({ url: `${s.origin}/x` });
    expectEnvelope(res, 200);
    expect(res.body.data.filename).toBe('evil.sh');
  });

  test('"" when nothing is advertised', async () => {
    const s = await source((_req, res) => res.end());
    const res = await probe({ url: `${s.origin}/` });
    expectEnvelope(res, 200, 'no_filename_advertised');
    expect(res.body.data).toEqual({ filename: '' });
  });

  test('HEAD refused (405) → a one-byte ranged GET', async () => {
    const s = await source((req, res) => {
      if (req.method === 'HEAD') {
        res.writeHead(405, { allow: 'GET' });
        res.end();
        return;
      }
      res.writeHead(206, { 'content-disposition': 'attachment; filename="ranged.img"', 'content-range': 'bytes 0-0/1000' });
      res.end('x');
    });
    const res = await probe({ url: `${s.origin}/img` });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data.filename).toBe('ranged.img');
    expect(s.seen.map((r) => [r.method, r.range])).toEqual([
      ['HEAD', undefined],
      ['GET', 'bytes=0-0'],
    ]);
  });

  test('HEAD answered 403 (a link signed for GET only) → a ranged GET too', async () => {
    const s = await source((req, res) => {
      res.writeHead(req.method === 'HEAD' ? 403 : 206, req.method === 'HEAD' ? {} : { 'content-disposition': 'attachment; filename="signed.qcow2"' });
      res.end();
    });
    const res = await probe({ url: `${s.origin}/bucket/obj?X-Amz-Signature=abc` });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data.filename).toBe('signed.qcow2');
    expect(s.seen.map((r) => r.method)).toEqual(['HEAD', 'GET']);
  });

  test('follows up to 5 redirects, naming the file after the final URL', async () => {
    const s = await source((req, res) => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
      if (n > 0) res.writeHead(302, { location: `/hop?n=${n - 1}` });
      else res.writeHead(200);
      res.end();
    });
    const chain = await source((_req, res) => {
      res.writeHead(301, { location: `${s.origin}/files/final%20name.tar.xz` });
      res.end();
    });
    let res = await probe({ url: `${s.origin}/hop?n=5` });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data.filename).toBe('hop');
    expect(s.seen).toHaveLength(6);
    res = await probe({ url: `${chain.origin}/start` });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data.filename).toBe('final name.tar.xz');
  });

  test('400 too_many_redirects after 5', async () => {
    const s = await source((req, res) => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
      res.writeHead(307, { location: `/hop?n=${n + 1}` });
      res.end();
    });
    const res = await probe({ url: `${s.origin}/hop?n=0` });
    expectEnvelope(res, 400, 'too_many_redirects');
    expect(res.body.error).toMatch(/^url: /);
    expect(s.seen).toHaveLength(6);
  });

  test('an error status is 200 with "" and source_error_status', async () => {
    const s = await source((_req, res) => {
      res.writeHead(404, { 'content-disposition': 'attachment; filename="not-this.iso"' });
      res.end();
    });
    const res = await probe({ url: `${s.origin}/missing.iso` });
    expectEnvelope(res, 200, 'source_error_status');
    expect(res.body.data).toEqual({ filename: '' });
  });

  test('nothing listening is 200 with "" and source_unreachable', async () => {
    const res = await probe({ url: `http://${ALLOWED}:${await closedPort(ALLOWED)}/a.iso` });
    expectEnvelope(res, 200, 'source_unreachable');
    expect(res.body.data).toEqual({ filename: '' });
  });

  test('a name that does not resolve is 200 with "" and source_unreachable', async () => {
    const res = await probe({ url: 'http://no-such-host.invalid/a.iso' });
    expectEnvelope(res, 200, 'source_unreachable');
    expect(res.body.data).toEqual({ filename: '' });
  });

  test('a source that never answers is 200 with "" and source_timeout after 10 s', async () => {
    const s = await source(() => undefined);
    const res = await probe({ url: `${s.origin}/slow.iso` });
    // the probe's own deadline ended it (source_timeout, not unreachable): the source was reached and never answered
    expectEnvelope(res, 200, 'source_timeout');
    expect(res.body.data).toEqual({ filename: '' });
    expect(s.seen.map((r) => r.path)).toEqual(['/slow.iso']);
  }, 30_000);

  test('https with a self-signed certificate: source_tls_error, unless ignoreTLS', async () => {
    const s = await httpsSource(ALLOWED, advertising('secure.iso'));
    sources.push(s);
    let res = await probe({ url: `${s.origin}/x` });
    expectEnvelope(res, 200, 'source_tls_error');
    expect(res.body.data).toEqual({ filename: '' });
    res = await probe({ url: `${s.origin}/x`, ignoreTLS: false });
    expectEnvelope(res, 200, 'source_tls_error');
    res = await probe({ url: `${s.origin}/x`, ignoreTLS: true });
    expectEnvelope(res, 200, 'filename_detected');
    expect(res.body.data.filename).toBe('secure.iso');
  });
});

describe('E8 SSRF refusals (400, the source never contacted)', () => {
  let v4: Source;
  let v6: Source;
  let any: Source;
  beforeAll(async () => {
    v4 = await source(advertising('leaked.iso'), '127.0.0.1');
    v6 = await source(advertising('leaked.iso'), '::1');
    any = await source(advertising('leaked.iso'), '0.0.0.0');
  });
  afterEach(() => {
    expect(v4.seen.length + v6.seen.length + any.seen.length).toBe(0);
  });

  const refused = async (url: string) => {
    const res = await probe({ url });
    expectEnvelope(res, 400, 'address_not_allowed');
    expect(res.body.data).toBeNull();
    expect(res.body.error).toMatch(/^url: /);
    return res;
  };

  test('127.0.0.1', async () => {
    await refused(`http://127.0.0.1:${v4.port}/x.iso`);
  });
  test('[::1]', async () => {
    await refused(`http://[::1]:${v6.port}/x.iso`);
  });
  test('[::ffff:127.0.0.1] (IPv4-mapped)', async () => {
    await refused(`http://[::ffff:127.0.0.1]:${v4.port}/x.iso`);
  });
  test('169.254.169.254 (link-local, cloud metadata)', async () => {
    const res = await refused('http://169.254.169.254/latest/meta-data/iam/');
    expect(res.body.error).toContain('linkLocal');
  });
  test('0.0.0.0', async () => {
    await refused(`http://0.0.0.0:${any.port}/x.iso`);
  });
  test('a name that resolves to a loopback address (localhost)', async () => {
    const res = await refused(`http://localhost:${v4.port}/x.iso`);
    expect(res.body.error).toContain('localhost resolves to');
  });
  test('decimal, octal and hex spellings of 127.0.0.1', async () => {
    for (const host of ['2130706433', '0177.0.0.1', '0x7f000001', '0x7f.0.0.1', '017700000001']) await refused(`http://${host}:${v4.port}/x.iso`);
  });
  test('private, CGNAT and multicast ranges', async () => {
    for (const host of ['10.0.0.1', '192.168.1.1', '172.16.5.4', '100.64.0.1', '224.0.0.1', '[fd00::1]', '[fe80::1]']) await refused(`http://${host}/x.iso`);
  });
  test('a redirect from an allowed source to a refused address', async () => {
    const hop = await source((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${v4.port}/x.iso` });
      res.end();
    });
    await refused(`${hop.origin}/go`);
    expect(hop.seen).toHaveLength(1);
  });
  test('a redirect to a refused address in another spelling', async () => {
    const hop = await source((_req, res) => {
      res.writeHead(301, { location: `http://[::ffff:7f00:1]:${v4.port}/x.iso` });
      res.end();
    });
    await refused(`${hop.origin}/go`);
  });
});

describe('E8 input', () => {
  test('400 unsupported_scheme for anything but http and https, also after a redirect', async () => {
    for (const url of ['ftp://example.com/a.iso', 'file:///etc/passwd', 'gopher://127.0.0.2:70/', 'data:text/plain,x']) {
      const res = await probe({ url });
      expectEnvelope(res, 400, 'unsupported_scheme');
      expect(res.body.error).toMatch(/^url: /);
    }
    const hop = await source((_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    });
    expectEnvelope(await probe({ url: `${hop.origin}/go` }), 400, 'unsupported_scheme');
  });

  test('400 invalid_url for a string that is not an absolute URL', async () => {
    for (const url of ['not a url', '/relative/path.iso', 'http://']) {
      const res = await probe({ url });
      expectEnvelope(res, 400, 'invalid_url');
      expect(res.body.error).toMatch(/^url: /);
    }
  });

  test('400 validation_failed naming every bad field', async () => {
    let res = await probe({});
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.url: is required');
    res = await probe({ url: 42, ignoreTLS: 'yes' });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.url: must be string');
    expect(res.body.error).toContain('body.ignoreTLS: must be boolean');
    res = await probe({ url: '', extra: 1 });
    expect(res.body.error).toContain('body.url: must NOT have fewer than 1 characters');
    expect(res.body.error).toContain('body.extra: is not an accepted field');
    res = await probe({ url: `http://example.com/${'a'.repeat(8200)}` });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.url: must NOT have more than 8192 characters');
    res = await probe(['http://example.com/']);
    expectEnvelope(res, 400, 'validation_failed');
  });

  test('400 for malformed JSON', async () => {
    const res = await call('POST', ROUTE, { rawBody: '{"url": "http://example.com/' });
    expectEnvelope(res, 400);
  });

  test('413 over the body limit', async () => {
    const res = await call('POST', ROUTE, { rawBody: JSON.stringify({ url: `http://example.com/${'a'.repeat(1024 * 1024)}` }) });
    expectEnvelope(res, 413, 'payload_too_large');
  });

  test('401 without or with a bad token; 403 for viewer and operator (admin only)', async () => {
    expectEnvelope(await probe({ url: 'http://example.com/a.iso' }, null), 401);
    expectEnvelope(await probe({ url: 'http://example.com/a.iso' }, 'not-a-token'), 401);
    expectEnvelope(await probe({ url: 'http://example.com/a.iso' }, await tokenFor('viewer')), 403, 'forbidden');
    expectEnvelope(await probe({ url: 'http://example.com/a.iso' }, await tokenFor('operator')), 403, 'forbidden');
  });
});

describe('E8 outbound targets, property-tested (test/helpers/fuzz/addresses.ts)', () => {
  test('every non-public address, in every spelling that carries it, is 400 address_not_allowed and never reached', async () => {
    const inside = await source(advertising('leaked.iso'), '127.0.0.1');
    // the test stack admits ALLOWED (HM_PROBE_ALLOW_CIDRS, test-only), in every spelling: fast-check's bias to
    // small offsets picks 127.0.0.2 often enough to make the property flaky if it is left in
    const refused = refusedV4.filter((a) => a !== ALLOWED);
    const target = fc.oneof(
      refused,
      refusedV6.map((a) => `[${a}]`),
      refused.chain((a) => fc.constantFrom(...v4CarriedInV6(a))).map((a) => `[${a}]`),
    );
    await fc.assert(
      fc.asyncProperty(target, async (host) => {
        const res = await probe({ url: `http://${host}:${inside.port}/x.iso` });
        expectEnvelope(res, 400, 'address_not_allowed');
        expect(res.body.error).toMatch(/^url: /);
      }),
      { numRuns: 60 },
    );
    expect(inside.seen).toEqual([]);
  });
});
