import type { SimHost } from '#shared/seed/host/schema';
import { fixture } from './fixtures.ts';

/**
 * Routing tables for the E18 tests (not a test file): the FreeBSD 14 sample
 * (test/fixtures/freebsd/netstat-rn-libxo-json-freebsd14.txt) as the seed's `routing` section of FIB 0, plus a
 * FIB 1 (a WireGuard client's table) with its own default route over wg0.
 */
type Routes = NonNullable<SimHost['routing']>['routes'];

export function fixtureRoutes(fib = 0): Routes {
  type Fam = { 'address-family': string; 'rt-entry': Array<Record<string, string>> };
  const doc = JSON.parse(fixture('netstat-rn-libxo-json-freebsd14.txt')) as { statistics: { 'route-information': { 'route-table': { 'rt-family': Fam[] } } } };
  return doc.statistics['route-information']['route-table']['rt-family'].flatMap((f) =>
    f['rt-entry'].map((e) => ({
      fib,
      family: f['address-family'] === 'Internet' ? ('inet' as const) : ('inet6' as const),
      destination: e.destination,
      gateway: e.gateway,
      flags: e.flags,
      interface: e['interface-name'],
    })),
  );
}

export const wireguardFibRoutes: Routes = [
  { fib: 1, family: 'inet', destination: 'default', gateway: '10.66.0.1', flags: 'UGS', interface: 'wg0' },
  { fib: 1, family: 'inet', destination: '10.66.0.0/24', gateway: 'link#7', flags: 'U', interface: 'wg0' },
  { fib: 1, family: 'inet6', destination: 'default', gateway: 'fe80::1%wg0', flags: 'UGS', interface: 'wg0' },
];

export const routingSection = (): NonNullable<SimHost['routing']> => ({ fibs: 2, routes: [...fixtureRoutes(0), ...wireguardFibRoutes] });
