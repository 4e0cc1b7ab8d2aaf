import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { checkNodeAddress } from '#domain/nodes/registration';

/**
 * A node's address check (E16's `body.ip`) runs on node:net. It accepts what ipaddr.js's strict forms accept
 * (IPv4 in four decimal parts, IPv6 without a zone) — checked here on generated addresses and on near misses —
 * except an embedded IPv4 part with a leading zero, which ipaddr.js takes and no host reports.
 */
const accepted = (ip: string) => {
  try {
    checkNodeAddress(ip);
    return true;
  } catch {
    return false;
  }
};
const byIpaddr = (ip: string) => ipaddr.IPv4.isValidFourPartDecimal(ip) || (ipaddr.IPv6.isValid(ip) && !ip.includes('%'));

test('every IPv4 and IPv6 address is accepted', () => {
  fc.assert(
    fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => accepted(ip)),
    { numRuns: 2000 },
  );
});

test('other forms of an address are answered as ipaddr.js answers them', () => {
  const nearMiss = fc.oneof(
    fc.ipV4Extended(),
    fc
      .tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.constantFrom('%em0', '/24', ' ', ':', '.', '.0', ':0', '::'), fc.boolean())
      .map(([ip, x, front]) => (front ? x + ip : ip + x)),
    fc.stringMatching(/^[0-9a-fA-F:.%]{1,24}$/),
  );
  fc.assert(
    fc.property(nearMiss, (ip) => accepted(ip) === byIpaddr(ip)),
    { numRuns: 5000 },
  );
});

test('a zone, a name or a leading zero is refused, naming body.ip', () => {
  for (const ip of ['fe80::1%em0', 'node1.example', '01.2.3.4', '1.2.3', '::ffff:01.2.3.4', '']) expect(accepted(ip)).toBe(false);
  expect(() => checkNodeAddress('x')).toThrow(/^body\.ip: must be an IP address/);
});
