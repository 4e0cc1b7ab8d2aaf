// @tier stack
import { randomUUID } from 'node:crypto';
import { testDb, uid } from '../helpers/api.ts';
import { loadSeed, SeedError } from '#shared/seed/load';
import { validateSeed } from '#shared/seed/validate';

/** The seed's firewall NAT sections: networkObjects, natRules, wireguardClients (E18). */
function fixture() {
  const T = uid();
  const node = randomUUID();
  return {
    T,
    node,
    doc: {
      nodes: [{ id: node, name: `nat-${T}` }],
      networkObjects: [{ name: `lans-${T}`, entries: ['10.30.0.0/16', '10.20.5.17', 'nas.example.net', '2001:db8::/64'], resolutions: ['10.30.4.20'] }],
      natRules: [
        { nodeId: node, name: 'egress', type: 'snat', source: '10.20.0.0/16', sourceObject: `lans-${T}`, egressInterfaces: ['vlan20'], policyRouting: true },
        { nodeId: node, name: 'web', type: 'dnat', family: 'inet6', source: '2001:db8::80' },
      ],
      wireguardClients: [{ nodeId: node, name: 'vpn', interface: 'wg0', fib: 1 }],
    } as Record<string, unknown[]>,
  };
}

async function problems(doc: unknown): Promise<string[]> {
  const err = await loadSeed(testDb(), validateSeed(doc, 'nat'), 'nat').catch((e) => e);
  expect(err).toBeInstanceOf(SeedError);
  return (err as SeedError).problems;
}

test('loads objects, rules (object by name) and WireGuard clients in one go; loading again updates by key', async () => {
  const { T, node, doc } = fixture();
  const db = testDb();
  const first = await loadSeed(db, validateSeed(structuredClone(doc), 'nat'), 'nat');
  expect(first).toMatchObject({ nodes: 1, networkObjects: 1, natRules: 2, wireguardClients: 1 });
  const object = await db.selectFrom('network_objects').selectAll().where('name', '=', `lans-${T}`).executeTakeFirstOrThrow();
  expect(object).toMatchObject({ description: '', entries: ['10.30.0.0/16', '10.20.5.17', 'nas.example.net', '2001:db8::/64'], resolutions: ['10.30.4.20'] });
  const rules = await db.selectFrom('firewall_nat_rules').selectAll().where('node_id', '=', node).orderBy('name').execute();
  expect(rules.map((r) => [r.name, r.type, r.family, r.source, r.source_object_id, r.egress_interfaces, r.policy_routing, r.enabled])).toEqual([
    ['egress', 'snat', 'inet', '10.20.0.0/16', object.id, ['vlan20'], true, true],
    ['web', 'dnat', 'inet6', '2001:db8::80', null, [], false, true],
  ]);
  expect(await db.selectFrom('wireguard_clients').select(['name', 'interface', 'fib']).where('node_id', '=', node).execute()).toEqual([
    { name: 'vpn', interface: 'wg0', fib: 1 },
  ]);

  // a second file: the rule refers to the object the store holds; same keys update, nothing is added
  const again = validateSeed(
    {
      natRules: [
        { nodeId: node, name: 'egress', type: 'binat', source: '10.21.0.0/16', sourceObject: `lans-${T}`, egressInterfaces: ['vlan21'], policyRouting: false },
      ],
      wireguardClients: [{ nodeId: node, name: 'vpn-2', interface: 'wg0', fib: 2 }],
    },
    'again',
  );
  expect(await loadSeed(db, again, 'again')).toMatchObject({ natRules: 1, wireguardClients: 1 });
  const updated = await db.selectFrom('firewall_nat_rules').selectAll().where('node_id', '=', node).where('name', '=', 'egress').execute();
  expect(updated.map((r) => [r.type, r.source, r.source_object_id, r.egress_interfaces, r.policy_routing])).toEqual([
    ['binat', '10.21.0.0/16', object.id, ['vlan21'], false],
  ]);
  expect(await db.selectFrom('wireguard_clients').select(['name', 'fib']).where('node_id', '=', node).execute()).toEqual([{ name: 'vpn-2', fib: 2 }]);
});

test('unknown nodes and objects, bad addresses and repeated keys are all refused, and nothing is written', async () => {
  const { T, node, doc } = fixture();
  const ghost = randomUUID();
  doc.networkObjects.push({ name: `bad-${T}`, entries: ['10.0.0.0/33', 'not a host!'], resolutions: ['10.1.0.0/24'] }, { name: `lans-${T}` });
  doc.natRules.push(
    { nodeId: ghost, name: 'orphan', type: 'snat' },
    { nodeId: node, name: 'missing-object', type: 'snat', sourceObject: `nope-${T}` },
    { nodeId: node, name: 'bad-source', type: 'snat', source: '10.0.0.300' },
    { nodeId: node, name: 'v6-in-v4', type: 'snat', source: '2001:db8::1' },
    { nodeId: node, name: 'egress', type: 'binat' },
  );
  doc.wireguardClients.push({ nodeId: ghost, name: 'x', interface: 'wg1' }, { nodeId: node, name: 'again', interface: 'wg0' });
  expect(await problems(doc)).toEqual([
    'networkObjects[2].name: repeats networkObjects[0]',
    'natRules[6].name: repeats natRules[0]',
    'wireguardClients[2].interface: repeats wireguardClients[0]',
    'networkObjects[1].entries[0]: "10.0.0.0/33" is not an IP address, CIDR or host name',
    'networkObjects[1].entries[1]: "not a host!" is not an IP address, CIDR or host name',
    'networkObjects[1].resolutions[0]: "10.1.0.0/24" is not an IP address',
    `natRules[2].nodeId: node ${ghost} is neither in this seed nor in the store`,
    `natRules[3].sourceObject: no network object named "nope-${T}" in this seed or the store`,
    'natRules[4].source: "10.0.0.300" is not an IP address or CIDR',
    `natRules[5].source: "2001:db8::1" is not of the rule's family inet`,
    `wireguardClients[1].nodeId: node ${ghost} is neither in this seed nor in the store`,
  ]);
  expect(await testDb().selectFrom('nodes').select('id').where('id', '=', node).execute()).toEqual([]);
  expect(await testDb().selectFrom('network_objects').select('id').where('name', '=', `lans-${T}`).execute()).toEqual([]);
});

test.each([
  [{ natRules: [{ nodeId: randomUUID(), name: 'a', type: 'masquerade' }] }, 'natRules[0].type: must be one of "snat", "dnat", "binat"'],
  [{ natRules: [{ name: 'a', type: 'snat' }] }, 'natRules[0].nodeId: is required'],
  [{ natRules: [{ nodeId: randomUUID(), name: 'a', type: 'snat', family: 'ipx' }] }, 'natRules[0].family: must be one of "inet", "inet6", "any"'],
  [{ natRules: [{ nodeId: randomUUID(), name: 'a', type: 'snat', egressInterfaces: ['bad if'] }] }, 'natRules[0].egressInterfaces[0]: must match pattern'],
  [{ networkObjects: [{ name: 'a', entries: 'x' }] }, 'networkObjects[0].entries: must be array'],
  [{ networkObjects: [{ name: 'a', members: [] }] }, 'networkObjects[0].members: is not an accepted field'],
  [{ wireguardClients: [{ nodeId: randomUUID(), name: 'a', interface: 'wg0', fib: 65536 }] }, 'wireguardClients[0].fib: must be <= 65535'],
  [{ wireguardClients: [{ nodeId: 'node-a', name: 'a', interface: 'wg0' }] }, "wireguardClients[0].nodeId: must be a node id, the host's UUID"],
])('the schema names the field: %j', (doc, message) => {
  expect(() => validateSeed(doc, 'nat')).toThrow(message);
});
