import type { Selectable } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import { iso } from '#store/paging';
import type { Db, FirewallNatRulesTable, NetworkObjectsTable } from '#store/tables';

/** A firewall NAT rule of a node, as the store holds it. */
export interface NatRule {
  id: number;
  nodeId: string;
  name: string;
  description: string;
  enabled: boolean;
  type: 'snat' | 'dnat' | 'binat';
  family: 'inet' | 'inet6' | 'any';
  source: string;
  sourceObjectId: number | null;
  egressInterfaces: string[];
  policyRouting: boolean;
  translateTo: string;
  createdAt: string;
  updatedAt: string;
}

/** A named set of addresses, CIDRs and host names; `resolutions` are what the names last resolved to. */
export interface NetworkObject {
  id: number;
  name: string;
  description: string;
  entries: string[];
  resolutions: string[];
}

const toNatRule = (r: Selectable<FirewallNatRulesTable>): NatRule => ({
  id: r.id,
  nodeId: r.node_id,
  name: r.name,
  description: r.description,
  enabled: r.enabled,
  type: r.type,
  family: r.family,
  source: r.source,
  sourceObjectId: r.source_object_id,
  egressInterfaces: r.egress_interfaces,
  policyRouting: r.policy_routing,
  translateTo: r.translate_to,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

const toNetworkObject = (r: Selectable<NetworkObjectsTable>): NetworkObject => ({
  id: r.id,
  name: r.name,
  description: r.description,
  entries: r.entries,
  resolutions: r.resolutions,
});

/** Every NAT rule, by id. */
export async function listNatRules(db: Db): Promise<NatRule[]> {
  return (await db.selectFrom('firewall_nat_rules').selectAll().orderBy('id').execute()).map(toNatRule);
}

export async function requireNatRule(db: Db, id: number): Promise<NatRule> {
  const row = await db.selectFrom('firewall_nat_rules').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('nat_rule_not_found', `NAT rule ${id} does not exist`);
  return toNatRule(row);
}

export async function findNetworkObject(db: Db, id: number | null): Promise<NetworkObject | null> {
  if (id === null) return null;
  const row = await db.selectFrom('network_objects').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toNetworkObject(row) : null;
}

/**
 * The FIB an egress interface routes in: a WireGuard client's interface uses the client's FIB, every other
 * interface FIB 0.
 */
export async function fibOfInterface(db: Db, nodeId: string, iface: string): Promise<number> {
  const row = await db.selectFrom('wireguard_clients').select('fib').where('node_id', '=', nodeId).where('interface', '=', iface).executeTakeFirst();
  return row?.fib ?? 0;
}
