import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { simulatedHost } from '../helpers/simulated-host.ts';
import { routingSection } from '../helpers/routing.ts';
import { createHost, sampleInventory } from './zfs-fixtures.ts';
import { routeTables } from '#agent/drivers/netstat';
import type { FirewallNatRulesTable } from '#store/tables';
import type { Insertable } from 'kysely';

/**
 * E18 GET /network/firewall/nat/{id}/route-suggestions and the NAT rule list, over real HTTP. The node's
 * routing tables are what the agent's collector reads from a simulated host seeded with the FreeBSD 14
 * `netstat -rn --libxo json` sample (FIB 0) and a WireGuard client's FIB 1.
 */
let viewer: string;
let nodeId: string;
let objectId: number;

const suggestions = async (id: number | string, token: string | null = viewer) => call('GET', `/network/firewall/nat/${id}/route-suggestions`, { token });

async function rule(values: Partial<Insertable<FirewallNatRulesTable>>): Promise<number> {
  const row = await testDb()
    .insertInto('firewall_nat_rules')
    .values({ node_id: nodeId, name: `nat-${uid()}`, type: 'snat', family: 'inet', policy_routing: true, egress_interfaces: ['r1-eth1'], ...values })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

beforeAll(async () => {
  viewer = await tokenFor('viewer');
  const routes = await routeTables(
    simulatedHost({ hostname: 'nat.test', cpus: 2, memoryBytes: 2 ** 30, disks: [], pools: [], datasets: [], sysctls: [], routing: routingSection() }),
  );
  ({ nodeId } = await createHost({ inventory: sampleInventory({ routes }) }));
  await testDb().insertInto('wireguard_clients').values({ node_id: nodeId, name: 'vpn-out', interface: 'wg0', fib: 1 }).execute();
  objectId = (
    await testDb()
      .insertInto('network_objects')
      .values({
        name: `lan-${uid()}`,
        // a duplicate of the rule's source, another family, a host name, and resolutions (one repeated)
        entries: ['172.16.0.0/24', '10.0.2.7', '2001:db8:2::/64', 'printer.example.net', '10.0.1.0/24'],
        resolutions: ['10.0.3.40', '10.0.2.7'],
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
});

describe('E18 GET /network/firewall/nat/{id}/route-suggestions', () => {
  test('200: candidates from the source and the object, de-duplicated, next hops by longest-prefix match in FIB 0', async () => {
    const id = await rule({ source: '172.16.0.9/24', source_object_id: objectId, name: `office-${uid()}` });
    const res = await suggestions(id);
    expectEnvelope(res, 200, 'nat_route_suggestions');
    const objectName = (await testDb().selectFrom('network_objects').select('name').where('id', '=', objectId).executeTakeFirstOrThrow()).name;
    expect(res.body.data.map((s: Record<string, unknown>) => [s.destination, s.destinationType, s.nextHopMode, s.gateway, s.interface, s.sourceHint])).toEqual([
      ['172.16.0.0/24', 'network', 'gateway', '10.0.3.1', 'r1-eth1', 'rule source'],
      ['10.0.2.7/32', 'host', 'gateway', '10.0.3.3', 'r1-eth1', `object ${objectName} entry`],
      ['10.0.1.0/24', 'network', 'link', '', 'r1-eth0', `object ${objectName} entry`],
      ['10.0.3.40/32', 'host', 'link', '', 'r1-eth1', `object ${objectName} resolution`],
    ]);
    expect(res.body.data[0]).toEqual({
      name: `nat${id}-return-172.16.0.0/24`,
      description: expect.stringContaining('rule source'),
      destination: '172.16.0.0/24',
      destinationType: 'network',
      family: 'inet',
      gateway: '10.0.3.1',
      gatewayZone: '',
      interface: 'r1-eth1',
      nextHopMode: 'gateway',
      sourceHint: 'rule source',
      enabled: true,
      fib: 0,
    });
  });

  test('inet6: the gateway zone is split off; a destination without a route has next hop none', async () => {
    const id = await rule({ family: 'inet6', type: 'binat', source: '2001:db8:2::15', source_object_id: objectId });
    const res = await suggestions(id);
    expectEnvelope(res, 200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        destination: '2001:db8:2::15/128',
        destinationType: 'host',
        family: 'inet6',
        nextHopMode: 'gateway',
        gateway: 'fe80::6013:37ff:fea9:9ea0',
        gatewayZone: 'r1-eth1',
        interface: 'r1-eth1',
      }),
      expect.objectContaining({ destination: '2001:db8:2::/64', destinationType: 'network', nextHopMode: 'gateway', gatewayZone: 'r1-eth1' }),
    ]);
    const lonely = await rule({ family: 'inet6', source: '2001:db8:99::1' });
    const none = await suggestions(lonely);
    expectEnvelope(none, 200);
    expect(none.body.data).toEqual([expect.objectContaining({ destination: '2001:db8:99::1/128', nextHopMode: 'none', gateway: '', interface: '' })]);
  });

  test('a WireGuard client egress routes in its FIB (1): default route over wg0; a disabled rule yields disabled suggestions', async () => {
    const id = await rule({ egress_interfaces: ['wg0'], source: '172.16.1.20', enabled: false });
    const res = await suggestions(id);
    expectEnvelope(res, 200);
    expect(res.body.data).toEqual([
      expect.objectContaining({ destination: '172.16.1.20/32', fib: 1, nextHopMode: 'gateway', gateway: '10.66.0.1', interface: 'wg0', enabled: false }),
    ]);
  });

  test('a rule with no source and no object has no suggestions', async () => {
    const res = await suggestions(await rule({}));
    expectEnvelope(res, 200);
    expect(res.body.data).toEqual([]);
  });

  test.each([
    [{ type: 'dnat' as const }, 'is dnat: route suggestions need an snat or binat rule'],
    [{ policy_routing: false }, 'has policy routing off'],
    [{ egress_interfaces: [] }, 'has 0 egress interfaces'],
    [{ egress_interfaces: ['r1-eth0', 'r1-eth1'] }, 'has 2 egress interfaces'],
    [{ family: 'any' as const }, 'has family any: route suggestions need inet or inet6'],
  ])('409 nat_rule_not_eligible for %j, saying which condition fails', async (values, detail) => {
    const id = await rule({ source: '10.0.2.1', ...values });
    const res = await suggestions(id);
    expectEnvelope(res, 409, 'nat_rule_not_eligible');
    expect(res.body.error).toBe(
      `NAT rule ${id} ${detail}${detail.startsWith('has 0') || detail.startsWith('has 2') ? ': route suggestions need exactly one' : ''}`,
    );
  });

  test('409 routing_table_unavailable when the node reported no table for the FIB', async () => {
    await testDb().insertInto('wireguard_clients').values({ node_id: nodeId, name: 'vpn-7', interface: 'wg7', fib: 7 }).execute();
    const res = await suggestions(await rule({ egress_interfaces: ['wg7'], source: '10.0.2.1' }));
    expectEnvelope(res, 409, 'routing_table_unavailable');
    expect(res.body.error).toBe(`node ${nodeId} has not reported a routing table for FIB 7`);
  });

  test('404 nat_rule_not_found for an unknown rule', async () => {
    const res = await suggestions(2147483647);
    expectEnvelope(res, 404, 'nat_rule_not_found');
    expect(res.body.error).toBe('NAT rule 2147483647 does not exist');
  });

  test.each(['0', '-1', 'abc', '1.5', '2147483648'])('400 naming path.id for id %s', async (id) => {
    const res = await suggestions(id);
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('path.id');
  });

  test('401 without or with an unknown token; 403 for an agent token', async () => {
    const id = await rule({ source: '10.0.2.1' });
    expectEnvelope(await suggestions(id, null), 401, 'unauthorized');
    expectEnvelope(await suggestions(id, 'not-a-token'), 401, 'unauthorized');
    expectEnvelope(await suggestions(id, await tokenFor('agent', nodeId)), 403, 'forbidden');
  });
});

describe('GET /network/firewall/nat', () => {
  test('lists the rules by id for a viewer', async () => {
    const id = await rule({ source: '10.0.2.1', description: 'office uplink' });
    const res = await call('GET', '/network/firewall/nat', { token: viewer });
    expectEnvelope(res, 200, 'nat_rules_listed');
    const ids = res.body.data.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(res.body.data.find((r: { id: number }) => r.id === id)).toMatchObject({
      id,
      nodeId,
      type: 'snat',
      family: 'inet',
      source: '10.0.2.1',
      egressInterfaces: ['r1-eth1'],
      policyRouting: true,
      description: 'office uplink',
    });
    expectEnvelope(await call('GET', '/network/firewall/nat', { token: null }), 401);
  });
});
