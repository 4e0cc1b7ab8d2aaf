import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import fc from 'fast-check';
import { probeAcmeDirectory } from '#domain/certificates/acme-directory';
import { addressRefusal, parseCidr } from '#domain/outbound/address-policy';
import { allowList } from '#domain/outbound/allow-lists';
import { failureReason, isFixedReason, OutboundFailure } from '#domain/outbound/failure';
import { outboundRequest } from '#domain/outbound/http-request';
import { AddressRefused, resolvePinned, type Resolver } from '#domain/outbound/resolve';
import { DomainError } from '#shared/errors/domain-errors';
import { selfSignedCertificate } from '../helpers/self-signed.ts';
import { publicV4, publicV6, refusedV4, refusedV6, v4CarriedInV6, v4In } from '../helpers/fuzz/addresses.ts';

const RUNS = { numRuns: 300 };

describe('address policy, property-tested over every class', () => {
  test('every non-public IPv4 address is refused, in each IPv6 spelling that carries it too', () => {
    fc.assert(
      fc.property(refusedV4, (a) => {
        expect(addressRefusal(a)).not.toBeNull();
        for (const v6 of v4CarriedInV6(a)) expect(addressRefusal(v6)).not.toBeNull();
        // IPv4-compatible (::a.b.c.d) is deprecated and refused whatever it carries
        expect(addressRefusal(`::${a}`)).not.toBeNull();
      }),
      RUNS,
    );
  });

  test('every non-public IPv6 address (loopback, unique-local, link-local, multicast, documentation, 6to4, Teredo) is refused', () => {
    fc.assert(
      fc.property(refusedV6, (a) => expect(addressRefusal(a)).not.toBeNull()),
      RUNS,
    );
  });

  test('public addresses pass, IPv4 also in its mapped and NAT64 spellings', () => {
    fc.assert(
      fc.property(publicV4, (a) => {
        expect(addressRefusal(a)).toBeNull();
        for (const v6 of v4CarriedInV6(a)) expect(addressRefusal(v6)).toBeNull();
      }),
      RUNS,
    );
    fc.assert(
      fc.property(publicV6, (a) => expect(addressRefusal(a)).toBeNull()),
      RUNS,
    );
  });

  test('an allow-list admits exactly its ranges: any other loopback address stays refused', () => {
    fc.assert(
      fc.property(v4In('127.0.0.0/8'), v4In('127.0.0.0/8'), (allowed, other) => {
        const allow = [parseCidr(`${allowed}/32`)];
        expect(addressRefusal(allowed, allow)).toBeNull();
        expect(addressRefusal(`::ffff:${allowed}`, allow)).toBeNull();
        if (other !== allowed) expect(addressRefusal(other, allow)).toBe('loopback');
        expect(addressRefusal('::1', allow)).toBe('loopback');
      }),
      RUNS,
    );
  });

  test('a name is refused when any address it resolves to is refused, and is looked up exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(publicV4, { maxLength: 3 }), fc.oneof(refusedV4, refusedV6), fc.nat(3), async (good, bad, at) => {
        const addresses = [...good];
        addresses.splice(Math.min(at, good.length), 0, bad);
        let lookups = 0;
        const resolve: Resolver = async () => {
          lookups++;
          return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        };
        const err = await resolvePinned('mixed.example', [], resolve).catch((e) => e);
        expect(err).toBeInstanceOf(AddressRefused);
        expect((err as AddressRefused).address).toBe(bad);
        expect(lookups).toBe(1);
      }),
      { numRuns: 100 },
    );
  });
});

describe('allow-list settings', () => {
  test('the delivery list is honoured in production; the probe and ACME lists are test-only', () => {
    const logged = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const prod = { HM_STAGE: 'prod', HM_NOTIFY_ALLOW_CIDRS: '10.1.2.0/24', HM_PROBE_ALLOW_CIDRS: '127.0.0.2/32', HM_ACME_ALLOW_CIDRS: '127.0.0.1/32' };
      expect(allowList('notify', prod)).toHaveLength(1);
      expect(allowList('probe', prod)).toEqual([]);
      expect(allowList('acme', prod)).toEqual([]);
      expect(allowList('acme', { ...prod, HM_STAGE: 'dev' })).toHaveLength(1);
      expect(allowList('notify', {})).toEqual([]);
      // the refusal of a test-only list in production is logged, naming the setting
      expect(logged.mock.calls.map(([l]) => JSON.parse(String(l)).setting)).toEqual(expect.arrayContaining(['HM_PROBE_ALLOW_CIDRS', 'HM_ACME_ALLOW_CIDRS']));
      // a malformed entry is refused naming the setting: neither widening the list nor silently dropped
      expect(() => allowList('notify', { HM_NOTIFY_ALLOW_CIDRS: 'not-a-range, 10.0.0.0/8' })).toThrow(
        'HM_NOTIFY_ALLOW_CIDRS="not-a-range, 10.0.0.0/8" is not allowed',
      );
    } finally {
      logged.mockRestore();
    }
  });
});

describe('fixed failure reasons', () => {
  test('codes and own phrases only, never a message', () => {
    expect(failureReason(new OutboundFailure('HTTP 502'))).toBe('HTTP 502');
    expect(failureReason(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:25 <banner>'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(failureReason(new Error('internal page: secret'))).toBe('internal_error');
    expect(failureReason(Object.assign(new Error('x'), { code: 'bad code\r\n' }))).toBe('internal_error');
    expect(failureReason(new DOMException('timed out', 'TimeoutError'))).toBe('ETIMEDOUT');
  });

  test('whatever a send throws, the reason is a fixed one and quotes none of its text', () => {
    const secret = fc.string({ minLength: 12 }).map((t) => `tok-${t}`);
    fc.assert(
      fc.property(secret, fc.option(fc.oneof(fc.string(), fc.constantFrom('ECONNREFUSED', 'ETIMEDOUT', 'CERT_HAS_EXPIRED'))), (message, code) => {
        const err = Object.assign(new Error(message), code === null ? {} : { code, cause: { code: message } });
        const reason = failureReason(err);
        expect(isFixedReason(reason)).toBe(true);
        expect(reason).not.toContain(message);
      }),
      RUNS,
    );
    expect(isFixedReason('webhook to 10.0.0.1 answered HTTP 500: <html>internal</html>')).toBe(false);
  });
});

/** A certificate for `name` (self-signed). */
const certificateFor = (name: string) => selfSignedCertificate(name, { key: 'rsa', days: 1 });

async function listen(server: http.Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}
const closeServer = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

describe('the connection goes to the checked address, under the name', () => {
  const ALLOWED = '127.0.0.3';
  const allow = [parseCidr(`${ALLOWED}/32`)];

  test('http: one lookup (the name does not exist in DNS), the Host header keeps the name', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers.host ?? '');
      res.end('ok');
    });
    const port = await listen(server, ALLOWED);
    try {
      let lookups = 0;
      const resolve: Resolver = async () => {
        lookups++;
        return [{ address: ALLOWED, family: 4 }];
      };
      const res = await outboundRequest({ url: `http://hooks.invalid:${port}/x`, method: 'POST', body: '{}', allow, timeoutMs: 5000, resolve });
      expect(res.status).toBe(200);
      expect(lookups).toBe(1);
      expect(seen).toEqual([`hooks.invalid:${port}`]);
    } finally {
      await closeServer(server);
    }
  });

  test('https: SNI and the certificate check use the name while the socket goes to the pinned address', async () => {
    const { key, cert } = certificateFor('hooks.invalid');
    const names: Array<string | false | null> = [];
    const server = https.createServer({ key, cert }, (req, res) => {
      names.push((req.socket as TLSSocket).servername);
      res.end('ok');
    });
    const port = await listen(server, ALLOWED);
    try {
      const resolve: Resolver = async () => [{ address: ALLOWED, family: 4 }];
      const res = await outboundRequest({ url: `https://hooks.invalid:${port}/x`, method: 'GET', allow, timeoutMs: 5000, resolve, ca: [cert] });
      expect(res.status).toBe(200);
      expect(names).toEqual(['hooks.invalid']);
      // a name the certificate does not carry is refused by the check (it is not turned off)
      const wrong = await outboundRequest({ url: `https://other.invalid:${port}/x`, method: 'GET', allow, timeoutMs: 5000, resolve, ca: [cert] }).catch(
        (e) => e,
      );
      expect(failureReason(wrong)).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    } finally {
      await closeServer(server);
    }
  });

  test('a refused address is never connected to; user-info in the URL is refused', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    const port = await listen(server, '127.0.0.1');
    try {
      const err = await outboundRequest({ url: `http://127.0.0.1:${port}/`, method: 'GET', allow, timeoutMs: 5000 }).catch((e) => e);
      expect(failureReason(err)).toBe('address not allowed: loopback');
      const creds = await outboundRequest({ url: `http://u:p@${ALLOWED}:${port}/`, method: 'GET', allow, timeoutMs: 5000 }).catch((e) => e);
      expect(failureReason(creds)).toBe('credentials in URL not allowed');
      expect(hits).toBe(0);
    } finally {
      await closeServer(server);
    }
  });
});

describe("E22's ACME directory check", () => {
  test('a slow-drip directory is cut at the total deadline, not held while it keeps dripping', async () => {
    let ended = false;
    let open = 0;
    const server = http.createServer((_req, res) => {
      open++;
      res.writeHead(200, { 'content-type': 'application/json' });
      let n = 0;
      // one byte every 50 ms for ~3 s, then an answer that is no directory: never idle long enough for an idle timeout
      const tick = setInterval(() => {
        if (res.destroyed) return clearInterval(tick);
        if (++n >= 60) {
          clearInterval(tick);
          ended = true;
          return res.end('}');
        }
        res.write(' ');
      }, 50);
    });
    const port = await listen(server, '127.0.0.1');
    try {
      const err = await probeAcmeDirectory(`http://127.0.0.1:${port}/dir`, { timeoutMs: 400, allow: [parseCidr('127.0.0.1/32')] }).catch((e) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('acme_unreachable');
      expect((err as DomainError).detail).toContain('no whole answer within 400 ms');
      // cut while the server was still dripping
      expect(open).toBe(1);
      expect(ended).toBe(false);
    } finally {
      await closeServer(server);
    }
  });

  test('a directory on a refused address is 502 acme_unreachable without a request', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('{"newOrder":"x"}');
    });
    const port = await listen(server, '127.0.0.1');
    try {
      const err = await probeAcmeDirectory(`http://127.0.0.1:${port}/dir`, { allow: [] }).catch((e) => e);
      expect((err as DomainError).code).toBe('acme_unreachable');
      expect((err as DomainError).detail).toContain('address not allowed: loopback');
      expect(hits).toBe(0);
    } finally {
      await closeServer(server);
    }
  });
});
