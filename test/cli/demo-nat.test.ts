import { runScript } from './run.ts';

/**
 * After `npm start` on an empty store, E18 answers with real suggestions for the demo's NAT rules: the demo
 * seed's network objects, rules and WireGuard client, next hops from the demo host's reported routing tables.
 */
type Row = [string, string, string, string, string, string, string, number];
const rows = (list: Array<Record<string, unknown>>): Row[] =>
  list.map((s) => [s.destination, s.destinationType, s.nextHopMode, s.gateway, s.gatewayZone, s.interface, s.sourceHint, s.fib] as Row);

test('the demo seed gives the eligible rules real route suggestions and refuses the ineligible one', async () => {
  const res = await runScript('../test/cli/demo-nat-runner.ts', [], { DATABASE_URL: '' });
  expect(res.stderr).toBe('');
  const out = JSON.parse(res.stdout.trim().split('\n').at(-1)!);
  expect(Object.keys(out).sort()).toEqual(['branch-egress', 'lan-over-vpn', 'partner-v6-binat', 'web-dnat']);
  expect(out['branch-egress'].nodeId).toBe('7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01');
  // snat over vlan20 in FIB 0: the rule's source, the object's entries (the host name by its resolution)
  expect(rows(out['branch-egress'].suggestions)).toEqual([
    ['10.20.0.0/16', 'network', 'link', '', '', 'vlan20', 'rule source', 0],
    ['10.30.0.0/16', 'network', 'gateway', '10.20.0.1', '', 'vlan20', 'object branch-lans entry', 0],
    ['172.16.50.0/24', 'network', 'gateway', '10.20.0.254', '', 'vlan20', 'object branch-lans entry', 0],
    ['10.20.5.17/32', 'host', 'link', '', '', 'vlan20', 'object branch-lans entry', 0],
    ['10.30.4.20/32', 'host', 'gateway', '10.20.0.1', '', 'vlan20', 'object branch-lans resolution', 0],
  ]);
  // inet6: a link-local gateway with its zone, and a destination only the default route covers
  expect(rows(out['partner-v6-binat'].suggestions)).toEqual([
    ['2001:db8:20:5::/64', 'network', 'gateway', 'fe80::20c:29ff:fe3a:1b2c', 'vlan20', 'vlan20', 'object partner-v6 entry', 0],
    ['2001:db8:99::7/128', 'host', 'gateway', '2001:db8:10::1', '', 're0', 'object partner-v6 entry', 0],
  ]);
  // the WireGuard client's interface routes in FIB 1
  expect(rows(out['lan-over-vpn'].suggestions)).toEqual([['192.168.10.0/24', 'network', 'gateway', '10.66.0.1', '', 'wg0', 'rule source', 1]]);
  expect(out['web-dnat']).toMatchObject({
    error: 'nat_rule_not_eligible',
    detail: expect.stringContaining('is dnat: route suggestions need an snat or binat rule'),
  });
});
