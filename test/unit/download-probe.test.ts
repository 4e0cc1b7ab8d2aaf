/**
 * The filename probe's SSRF policy with the allow-list OFF (`allow: []`, as in production): every refused
 * address below has a real server listening on it that advertises a filename, so a probe that skipped the check
 * would report `leaked.iso` instead of refusing.
 */
import { DomainError } from '#shared/errors/domain-errors';
import { addressRefusal, parseCidr } from '#domain/outbound/address-policy';
import { advertisedFilename } from '#domain/downloads/filename';
import { detectFilename } from '#domain/downloads/probe';
import { allowList } from '#domain/outbound/allow-lists';
import { advertising, httpSource, type Source } from '../helpers/download-sources.ts';

const probeAllowList = (env: NodeJS.ProcessEnv) => allowList('probe', env);

async function refusal(url: string): Promise<DomainError> {
  try {
    const got = await detectFilename({ url }, { allow: [] });
    throw new Error(`probe of ${url} was not refused: ${JSON.stringify(got)}`);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return err;
  }
}

describe('address policy', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
    ['::ffff:169.254.169.254', 'ipv4Mapped:linkLocal'],
    ['::ffff:10.0.0.1', 'ipv4Mapped:private'],
    ['::ffff:0:7f00:1', 'rfc6145:loopback'],
    ['64:ff9b::7f00:1', 'rfc6052:loopback'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052:linkLocal'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['::7f00:1', 'ipv4Compatible'],
    ['2002:7f00:1::1', '6to4'],
    ['2001::1', 'teredo'],
    ['fec0::1', 'deprecatedSiteLocal'],
  ])('%s is refused (%s)', (address, why) => {
    expect(addressRefusal(address)).toBe(why);
  });

  test.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('%s (public unicast) is allowed', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });

  test('an allow-list admits only its own ranges', () => {
    const allow = [parseCidr('127.0.0.2/32')];
    expect(addressRefusal('127.0.0.2', allow)).toBeNull();
    expect(addressRefusal('::ffff:127.0.0.2', allow)).toBeNull();
    expect(addressRefusal('127.0.0.1', allow)).toBe('loopback');
    expect(addressRefusal('::1', allow)).toBe('loopback');
  });
});

describe('allow-list setting', () => {
  test('off by default, parsed outside production, refused in a production stage', () => {
    expect(probeAllowList({})).toEqual([]);
    expect(probeAllowList({ HM_PROBE_ALLOW_CIDRS: '127.0.0.2/32, ::1', HM_STAGE: 'dev' })).toHaveLength(2);
    const logged = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(probeAllowList({ HM_PROBE_ALLOW_CIDRS: '127.0.0.2/32', HM_STAGE: 'prod' })).toEqual([]);
      expect(probeAllowList({ HM_PROBE_ALLOW_CIDRS: '127.0.0.2/32', HM_STAGE: 'Production' })).toEqual([]);
    } finally {
      logged.mockRestore();
    }
  });
});

describe('refusals with the allow-list off, against live servers', () => {
  let v4: Source;
  let v6: Source;
  let any: Source;
  beforeAll(async () => {
    v4 = await httpSource('127.0.0.1', advertising('leaked.iso'));
    v6 = await httpSource('::1', advertising('leaked.iso'));
    // 0.0.0.0 as a destination reaches a wildcard listener on Linux
    any = await httpSource('0.0.0.0', advertising('leaked.iso'));
  });
  afterAll(async () => {
    await Promise.all([v4.close(), v6.close(), any.close()]);
  });

  test.each([
    ['loopback 127.0.0.1', (p: Ports) => `http://127.0.0.1:${p.v4}/x.iso`],
    ['loopback [::1]', (p: Ports) => `http://[::1]:${p.v6}/x.iso`],
    ['IPv4-mapped [::ffff:127.0.0.1]', (p: Ports) => `http://[::ffff:127.0.0.1]:${p.v4}/x.iso`],
    ['NAT64 [64:ff9b::127.0.0.1]', (p: Ports) => `http://[64:ff9b::127.0.0.1]:${p.v4}/x.iso`],
    ['unspecified 0.0.0.0', (p: Ports) => `http://0.0.0.0:${p.any}/x.iso`],
    ['decimal 2130706433', (p: Ports) => `http://2130706433:${p.v4}/x.iso`],
    ['octal 0177.0.0.1', (p: Ports) => `http://0177.0.0.1:${p.v4}/x.iso`],
    ['hex 0x7f000001', (p: Ports) => `http://0x7f000001:${p.v4}/x.iso`],
    ['hex dotted 0x7f.0.0.1', (p: Ports) => `http://0x7f.0.0.1:${p.v4}/x.iso`],
    ['a name resolving to loopback (localhost)', (p: Ports) => `http://localhost:${p.v4}/x.iso`],
  ])('%s → address_not_allowed', async (_name, url) => {
    const err = await refusal(url({ v4: v4.port, v6: v6.port, any: any.port }));
    expect(err.code).toBe('address_not_allowed');
    expect(err.kind).toBe('invalid');
    expect(err.detail).toMatch(/^url: /);
    expect(v4.seen.length + v6.seen.length + any.seen.length).toBe(0);
  });

  test('link-local metadata address 169.254.169.254 → address_not_allowed', async () => {
    const err = await refusal('http://169.254.169.254/latest/meta-data/');
    expect(err.code).toBe('address_not_allowed');
    expect(err.detail).toContain('linkLocal');
  });

  test('without the check the servers would have answered (the tests above are live)', async () => {
    const allow = [parseCidr('127.0.0.0/8'), parseCidr('::1/128')];
    await expect(detectFilename({ url: `http://127.0.0.1:${v4.port}/x.iso` }, { allow })).resolves.toEqual({
      filename: 'leaked.iso',
      outcome: 'filename_detected',
    });
    await expect(detectFilename({ url: `http://[::1]:${v6.port}/x.iso` }, { allow })).resolves.toEqual({
      filename: 'leaked.iso',
      outcome: 'filename_detected',
    });
    v4.seen.length = 0;
    v6.seen.length = 0;
  });
});

interface Ports {
  v4: number;
  v6: number;
  any: number;
}

describe('advertised filename', () => {
  const url = new URL('https://example.com/dl/fallback%20name.iso?x=1');
  test.each([
    ['filename* (UTF-8) wins over filename', `attachment; filename="plain.iso"; filename*=UTF-8''%E2%82%AC%20rates.iso`, '€ rates.iso'],
    ['filename* in ISO-8859-1', `attachment; filename*=iso-8859-1'en'%A3%20rates.txt`, '£ rates.txt'],
    ['plain filename', 'attachment; filename="FreeBSD-14.1-RELEASE-amd64-disc1.iso"', 'FreeBSD-14.1-RELEASE-amd64-disc1.iso'],
    ['a path is stripped to its last component', 'attachment; filename="../../etc/passwd"', 'passwd'],
    ['backslash paths too', 'attachment; filename="C:\\\\temp\\\\evil.exe"', 'evil.exe'],
    ['control characters are removed', `attachment; filename*=UTF-8''a%0D%0Ab%07.iso`, 'ab.iso'],
    ['unparseable header → URL segment', 'attachment; filename=', 'fallback name.iso'],
    ['no header → URL segment, percent-decoded', undefined, 'fallback name.iso'],
  ])('%s', (_name, header, want) => {
    expect(advertisedFilename(header, url)).toBe(want);
  });

  test.each([
    ['a right-to-left override (U+202E)', `attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe`, 'invoicefdp.exe'],
    ['isolates, zero-width spaces and joiners, a BOM', `attachment; filename*=UTF-8''%E2%81%A6a%E2%80%8Bb%E2%80%8Dc%EF%BB%BF%E2%81%A9.iso`, 'abc.iso'],
    ['a left-to-right mark in the URL segment', undefined, 'report.pdf', 'https://example.com/%E2%80%8Ereport.pdf'],
  ])('format characters are removed: %s', (_name, header, want, from = 'https://example.com/x') => {
    expect(advertisedFilename(header, new URL(from))).toBe(want);
  });

  test('a name is cut to 255 bytes of UTF-8: whole characters, the extension kept', () => {
    const long = `${'a'.repeat(300)}.iso`;
    expect(advertisedFilename(`attachment; filename="${long}"`, url)).toBe(`${'a'.repeat(251)}.iso`);
    // 3-byte characters: 83 of them (249 bytes) fit before ".iso" (4 bytes); a fraction of one never remains
    const euros = `attachment; filename*=UTF-8''${'%E2%82%AC'.repeat(200)}.iso`;
    const cut = advertisedFilename(euros, url);
    expect(cut).toBe(`${'€'.repeat(83)}.iso`);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(255);
    // without an extension the name itself is cut
    expect(advertisedFilename(undefined, new URL(`https://example.com/${'b'.repeat(400)}`))).toBe('b'.repeat(255));
  });

  test('"" when neither advertises a name', () => {
    expect(advertisedFilename(undefined, new URL('https://example.com/'))).toBe('');
    expect(advertisedFilename(undefined, new URL('https://example.com/dir/..%2F'))).toBe('');
    expect(advertisedFilename('attachment; filename=".."', new URL('https://example.com/'))).toBe('');
  });
  test('a malformed escape in the URL keeps the segment', () => {
    expect(advertisedFilename(undefined, new URL('https://example.com/a%zz.iso'))).toBe('a%zz.iso');
  });
});

describe('resolve once, connect to the checked address', () => {
  let pinned: Source;
  let rebound: Source;
  beforeAll(async () => {
    // HEAD refused, so one hop makes two requests: neither may look the name up again
    pinned = await httpSource('127.0.0.2', (req, res) => {
      if (req.method === 'HEAD') res.writeHead(405);
      else res.writeHead(206, { 'content-disposition': 'attachment; filename="pinned.iso"' });
      res.end();
    });
    // the same port on a refused address: where a second lookup (DNS rebinding) would lead
    rebound = await httpSource('127.0.0.1', advertising('leaked.iso'), pinned.port);
  });
  afterAll(async () => {
    await Promise.all([pinned.close(), rebound.close()]);
  });

  test('a name that rebinds to a refused address after the check still reaches the checked one', async () => {
    const calls: string[] = [];
    const resolve = async (host: string) => {
      calls.push(host);
      return [{ address: calls.length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    };
    const got = await detectFilename({ url: `http://rebind.test:${pinned.port}/x` }, { allow: [parseCidr('127.0.0.2/32')], resolve });
    expect(got).toEqual({ filename: 'pinned.iso', outcome: 'filename_detected' });
    expect(calls).toEqual(['rebind.test']);
    expect(pinned.seen.map((r) => [r.method, r.host])).toEqual([
      ['HEAD', `rebind.test:${pinned.port}`],
      ['GET', `rebind.test:${pinned.port}`],
    ]);
    expect(rebound.seen).toHaveLength(0);
  });

  test('a name with any refused address among its answers is refused', async () => {
    const resolve = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const err = await detectFilename({ url: `http://mixed.test:${pinned.port}/x` }, { allow: [parseCidr('127.0.0.2/32')], resolve }).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err.code).toBe('address_not_allowed');
    expect(err.detail).toContain('mixed.test resolves to 10.0.0.5');
  });

  test('credentials in the URL are not sent to the source', async () => {
    const seen: Array<string | undefined> = [];
    const s = await httpSource('127.0.0.2', (req, res) => {
      seen.push(req.headers.authorization);
      res.end();
    });
    try {
      await detectFilename({ url: `http://user:secret@127.0.0.2:${s.port}/f.iso` }, { allow: [parseCidr('127.0.0.2/32')] });
      expect(seen).toEqual([undefined]);
    } finally {
      await s.close();
    }
  });
});
