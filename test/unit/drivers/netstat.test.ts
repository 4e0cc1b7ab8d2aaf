import { parseNetstatRoutes, routeTables } from '#agent/drivers/netstat';
import { getSysctls } from '#agent/drivers/sysctl';
import { fixture, host, simulate } from '../simulator/sim-helper.ts';
import { fixtureRoutes, routingSection } from '../../helpers/routing.ts';

const SAMPLE = 'netstat-rn-libxo-json-freebsd14.txt';
const withoutKidx = (text: string) => text.replace(/"nhop-kidx":\d+/g, '"nhop-kidx":N');

describe('netstat -rn --libxo json (routing tables for E18)', () => {
  it('the parser reads the FreeBSD 14 sample: both families, link# and zoned gateways', () => {
    const routes = parseNetstatRoutes(fixture(SAMPLE));
    expect(routes).toHaveLength(16);
    expect(routes.filter((r) => r.family === 'inet')).toHaveLength(9);
    expect(routes).toContainEqual({ family: 'inet', destination: '10.0.2.0/24', gateway: '10.0.3.3', flags: 'UG1', interface: 'r1-eth1' });
    expect(routes).toContainEqual({
      family: 'inet6',
      destination: '2001:db8:2::/64',
      gateway: 'fe80::6013:37ff:fea9:9ea0%r1-eth1',
      flags: 'UG1',
      interface: 'r1-eth1',
    });
    expect(routes).toContainEqual({ family: 'inet6', destination: 'fe80::%lo0/64', gateway: 'link#13', flags: 'U', interface: 'lo0' });
  });

  it('reads a family of one entry, which libxo writes as an object', () => {
    const one =
      '{"statistics": {"route-information": {"route-table": {"rt-family": {"address-family":"Internet", "rt-entry": {"destination":"default","gateway":"192.0.2.1","flags":"UGS","interface-name":"em0"}}}}}}';
    expect(parseNetstatRoutes(one)).toEqual([{ family: 'inet', destination: 'default', gateway: '192.0.2.1', flags: 'UGS', interface: 'em0' }]);
  });

  it('the simulator prints the sample (FIB 0 seeded from it) in the same shape and order', async () => {
    const h = simulate(host({ routing: { routes: fixtureRoutes(0) } }));
    const res = await h.exec.run(['netstat', '-rn', '-F', '0', '--libxo', 'json']);
    expect(res.code).toBe(0);
    expect(withoutKidx(res.stdout)).toBe(withoutKidx(fixture(SAMPLE)));
  });

  it('the simulator prints one family with -f and the text table without --libxo', async () => {
    const h = simulate(host({ routing: routingSection() }));
    const v6 = await h.exec.run(['netstat', '-rn', '-f', 'inet6', '-F', '1', '--libxo', 'json']);
    expect(parseNetstatRoutes(v6.stdout)).toEqual([{ family: 'inet6', destination: 'default', gateway: 'fe80::1%wg0', flags: 'UGS', interface: 'wg0' }]);
    const text = await h.exec.run(['netstat', '-rn', '-F', '1']);
    expect(text.stdout).toMatch(/^Routing tables\n\nInternet:\nDestination {8}Gateway {12}Flags {5}Netif Expire\ndefault {12}10\.66\.0\.1 {10}UGS {9}wg0\n/);
  });

  it('an unknown FIB fails as netstat does', async () => {
    const h = simulate(host({ routing: routingSection() }));
    expect(await h.exec.run(['netstat', '-rn', '-F', '2', '--libxo', 'json'])).toMatchObject({ code: 1, stderr: 'netstat: 2: invalid fib\n' });
    expect(await h.exec.run(['netstat', '-rn', '-F', 'x'])).toMatchObject({ code: 1, stderr: 'netstat: x: invalid fib\n' });
  });

  it('the agent collects every FIB that net.fibs counts', async () => {
    const h = simulate(host({ routing: routingSection() }));
    expect((await getSysctls(h.exec, ['net.fibs'])).get('net.fibs')).toBe('2');
    const tables = await routeTables(h.exec);
    expect(tables.map((t) => [t.fib, t.routes.length])).toEqual([
      [0, 16],
      [1, 3],
    ]);
    expect(tables[1].routes[0]).toEqual({ family: 'inet', destination: 'default', gateway: '10.66.0.1', flags: 'UGS', interface: 'wg0' });
  });

  it('a host without routes still has FIB 0 (empty)', async () => {
    expect(await routeTables(simulate(host()).exec)).toEqual([{ fib: 0, routes: [] }]);
  });
});
