import fc from 'fast-check';

/**
 * Outbound targets for the property tests of the outbound-address policy: addresses of every class a URL can
 * name, by the range they fall in (IANA special-purpose registries, RFC 6890 / RFC 5156), each with the spellings
 * that carry them (an IPv4 address as an IPv4-mapped, NAT64 or IPv4-translated IPv6 address).
 */
const octet = fc.integer({ min: 0, max: 255 });

/** An IPv4 address inside `a.b.c.d/bits`. */
export function v4In(cidr: string): fc.Arbitrary<string> {
  const [net, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const base = net!.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const size = 2 ** (32 - bits);
  return fc.integer({ min: 0, max: size - 1 }).map((off) => {
    const n = base + off;
    return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
  });
}

/** An IPv6 address whose first `prefix.length` hex groups are `prefix` (the rest random). */
export function v6With(prefix: number[]): fc.Arbitrary<string> {
  return fc
    .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8 - prefix.length, maxLength: 8 - prefix.length })
    .map((rest) => [...prefix, ...rest].map((g) => g.toString(16)).join(':'));
}

/** IPv4 ranges a connection on a user's behalf must never reach, by the name ipaddr.js gives them. */
export const REFUSED_V4: Record<string, string[]> = {
  loopback: ['127.0.0.0/8'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'],
  linkLocal: ['169.254.0.0/16'],
  carrierGradeNat: ['100.64.0.0/10'],
  unspecified: ['0.0.0.0/8'],
  multicast: ['224.0.0.0/4'],
  reserved: ['240.0.0.0/5', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'],
};

/** IPv4 ranges of ordinary public hosts (allocated to operators). */
export const PUBLIC_V4 = ['1.1.1.0/24', '8.8.8.0/24', '93.184.216.0/24', '151.101.0.0/16', '52.0.0.0/10'];

export const refusedV4 = fc.constantFrom(...Object.values(REFUSED_V4).flat()).chain(v4In);
export const publicV4 = fc.constantFrom(...PUBLIC_V4).chain(v4In);

/** IPv6 addresses of the non-public classes: loopback, unspecified, unique-local, link-local, multicast, documentation, 6to4, Teredo. */
export const refusedV6 = fc.oneof(
  fc.constantFrom('::1', '::', '0:0:0:0:0:0:0:1'),
  fc.integer({ min: 0xfc00, max: 0xfdff }).chain((g) => v6With([g])),
  fc.integer({ min: 0xfe80, max: 0xfebf }).chain((g) => v6With([g])),
  fc.integer({ min: 0xff00, max: 0xffff }).chain((g) => v6With([g])),
  v6With([0x2001, 0xdb8]),
  v6With([0x2002]),
  v6With([0x2001, 0]),
);

/** Global unicast IPv6 of ordinary public hosts. */
export const publicV6 = fc.oneof(v6With([0x2a00, 0x1450]), v6With([0x2606, 0x4700]), v6With([0x2001, 0x4860]));

/** The IPv6 spellings that carry an IPv4 address: IPv4-mapped, NAT64 well-known prefix, IPv4-translated. */
export const v4CarriedInV6 = (v4: string): string[] => [`::ffff:${v4}`, `64:ff9b::${v4}`, `::ffff:0:${v4}`];

export { octet };
