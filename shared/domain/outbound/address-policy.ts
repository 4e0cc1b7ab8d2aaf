import ipaddr from 'ipaddr.js';

/**
 * The outbound-address policy: which addresses the control plane may connect to on a user's behalf (E8's filename
 * probe, notification deliveries, the ACME directory; ./resolve.ts applies it). Only public unicast addresses: private, loopback,
 * link-local (cloud metadata at 169.254.169.254), CGNAT, multicast, broadcast, reserved, documentation and
 * unspecified ranges are refused, in IPv4 and IPv6. IPv6 forms that carry an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated, NAT64 `64:ff9b::/96`) are judged by the IPv4 address they carry; the
 * other tunnelling and deprecated forms (IPv4-compatible `::a.b.c.d`, local-use NAT64, 6to4, Teredo,
 * site-local) are refused outright.
 */

/** A CIDR range an allow-list admits (./allow-lists.ts). */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses `a.b.c.d/n` or `x::y/n` (a bare address is a single-address range); throws on a malformed entry. */
export function parseCidr(text: string): Cidr {
  const t = text.trim();
  if (t.includes('/')) return ipaddr.parseCIDR(t);
  const a = ipaddr.parse(t);
  return [a, a.kind() === 'ipv4' ? 32 : 128];
}

const inAllowList = (a: ipaddr.IPv4 | ipaddr.IPv6, allow: readonly Cidr[]) => allow.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));

/** The IPv4 address an IPv6 address carries in its last 32 bits. */
const embeddedV4 = (a: ipaddr.IPv6) => {
  const b = a.toByteArray();
  return new ipaddr.IPv4(b.slice(12, 16));
};

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Why `address` may not be connected to (the name of its range, e.g. `loopback`), or null when it may.
 * An address inside one of `allow`'s ranges is admitted whatever its range.
 */
export function addressRefusal(address: string, allow: readonly Cidr[] = []): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const a = ipaddr.parse(address);
  if (inAllowList(a, allow)) return null;
  if (a.kind() === 'ipv4') {
    const range = a.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = a as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && v6.match(NAT64_WELL_KNOWN))) {
    const v4 = embeddedV4(v6);
    if (inAllowList(v4, allow)) return null;
    const inner = v4.range();
    return inner === 'unicast' ? null : `${range}:${inner}`;
  }
  if (range !== 'unicast') return range;
  if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return null;
}
