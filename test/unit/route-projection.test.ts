// @tier stack
import { randomUUID } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { testDb, uid } from '../helpers/api.ts';
import { routeMath, type RouteEntry, type RouteTable } from '#domain/network/routes';
import { hasRouteTable, projectRoutes, routesByKey } from '#domain/network/route-projection';

const { coveringKeys, indexRoutes, longestPrefixMatch, parsePrefix, prefixKey } = routeMath(ipaddr);

/** E18's routing-table projection and its longest-prefix match by covering-prefix keys. */
const r = (family: 'inet' | 'inet6', destination: string, gateway: string, flags = 'UGS', iface = 'em0'): RouteEntry => ({
  family,
  destination,
  gateway,
  flags,
  interface: iface,
});
const v4 = (t: string) => parsePrefix(t, 'inet')!;
const v6 = (t: string) => parsePrefix(t, 'inet6')!;

describe('longest-prefix match by prefix key', () => {
  const table = indexRoutes([
    r('inet', 'default', '192.0.2.1'),
    r('inet', '10.0.0.0/8', '192.0.2.8'),
    r('inet', '10.1.0.0/16', 'link#2', 'U', 'em1'),
    r('inet', '10.1.2.0/24', '10.1.0.9', 'UGRS'), // reject: no next hop
    r('inet', '10.1.3.7', '10.1.0.7', 'UGHS'),
    r('inet6', 'fe80::%em0/64', 'link#1', 'U', 'em0'),
    r('inet6', 'fe80::%em1/64', 'link#2', 'U', 'em1'), // same prefix: the first wins
    r('inet6', '2001:db8::/32', 'fe80::1%em0'),
    r('inet', 'not-an-address', '192.0.2.1'),
  ]);

  test('keys are normalised network/len; covering keys run from the prefix itself to /0', () => {
    expect(prefixKey(v4('10.1.2.99/24'))).toBe('10.1.2.0/24');
    expect(prefixKey(v6('2001:0db8:0:0::5/48'))).toBe('2001:db8::/48');
    expect(coveringKeys(v4('10.1.2.3/32'))).toHaveLength(33);
    expect(coveringKeys(v4('10.1.2.0/24')).slice(0, 3)).toEqual(['10.1.2.0/24', '10.1.2.0/23', '10.1.0.0/22']);
    expect(coveringKeys(v6('2001:db8::1/128')).at(-1)).toBe('::/0');
    expect([...table.keys()]).toEqual(['0.0.0.0/0', '10.0.0.0/8', '10.1.0.0/16', '10.1.3.7/32', 'fe80::/64', '2001:db8::/32']);
  });

  test.each([
    ['10.1.3.7', '10.1.3.7'],
    ['10.1.3.8', '10.1.0.0/16'],
    ['10.1.2.0/24', '10.1.0.0/16'], // the reject route is skipped
    ['10.200.0.0/16', '10.0.0.0/8'],
    ['172.16.0.1', 'default'],
  ])('inet %s → %s', (target, destination) => {
    expect(longestPrefixMatch(table, v4(target))?.destination).toBe(destination);
  });

  test('inet6: a zoned link-local prefix matches (first of two wins); no route → null', () => {
    expect(longestPrefixMatch(table, v6('fe80::5'))).toMatchObject({ destination: 'fe80::%em0/64', interface: 'em0' });
    expect(longestPrefixMatch(table, v6('2001:db8:7::/64'))?.gateway).toBe('fe80::1%em0');
    expect(longestPrefixMatch(table, v6('2001:db9::1'))).toBeNull();
  });

  test('agrees with a scan of every route using ipaddr.js match', () => {
    const routes = Array.from({ length: 300 }, (_, i) => r('inet', `10.${i % 7}.${(i * 13) % 256}.0/${16 + (i % 9)}`, `192.0.2.${i % 250}`));
    const index = indexRoutes(routes);
    for (let i = 0; i < 200; i++) {
      const target = ipaddr.IPv4.parse(`10.${i % 8}.${(i * 29) % 256}.${i}`);
      const scan =
        routes.filter((x) => target.match(v4(x.destination) as [ipaddr.IPv4, number])).sort((a, b) => v4(b.destination)[1] - v4(a.destination)[1])[0] ?? null;
      expect(longestPrefixMatch(index, [target, 32])?.destination ?? null).toBe(scan?.destination ?? null);
    }
  });
});

describe('projectRoutes', () => {
  async function node(): Promise<string> {
    const id = randomUUID();
    await testDb()
      .insertInto('nodes')
      .values({ id, name: `routes-${uid()}`, ip: '192.0.2.10', status: 'member', inventory: '{}' })
      .execute();
    return id;
  }
  const fib0: RouteTable = { fib: 0, routes: [r('inet', 'default', '192.0.2.1'), r('inet', '10.0.0.0/8', 'link#1', 'U')] };
  const fib1: RouteTable = { fib: 1, routes: [r('inet', 'default', '10.66.0.1', 'UGS', 'wg0')] };

  test('follows each report: changed tables rewritten, dropped FIBs removed, no routes = no tables', async () => {
    const db = testDb();
    const id = await node();
    await projectRoutes(db, id, [fib0, fib1, { fib: 1, routes: [] }, { fib: -1, routes: [] } as RouteTable]);
    expect([await hasRouteTable(db, id, 0), await hasRouteTable(db, id, 1), await hasRouteTable(db, id, 2)]).toEqual([true, true, false]);
    expect([...(await routesByKey(db, id, 1, 'inet', ['0.0.0.0/0', '10.0.0.0/8'])).values()]).toEqual([fib1.routes[0]]);

    const changed: RouteTable = { fib: 0, routes: [r('inet', '10.0.0.0/8', '192.0.2.9')] };
    await projectRoutes(db, id, [changed]);
    expect(await hasRouteTable(db, id, 1)).toBe(false);
    expect([...(await routesByKey(db, id, 0, 'inet', ['0.0.0.0/0', '10.0.0.0/8'])).entries()]).toEqual([['10.0.0.0/8', changed.routes[0]]]);

    await projectRoutes(db, id, undefined);
    expect(await hasRouteTable(db, id, 0)).toBe(false);
    expect(await db.selectFrom('node_routes').select('prefix').where('node_id', '=', id).execute()).toEqual([]);
  });
});
