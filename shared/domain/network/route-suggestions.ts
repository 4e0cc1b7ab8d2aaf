import ipaddr from 'ipaddr.js';
import { conflict } from '#shared/errors/domain-errors';
import type { Db } from '#store/tables';
import type { HostInventory } from '../inventory.ts';
import { compileTable, familyOf, longestPrefixMatch, nextHopOf, parsePrefix, type AddressFamily, type RouteTable } from './routes.ts';
import { fibOfInterface, findNetworkObject, requireNatRule, type NatRule, type NetworkObject } from './nat-rules.ts';

/** One static return route E18 suggests (the spec's "Firewall NAT route suggestion"). */
export interface RouteSuggestion {
  name: string;
  description: string;
  destination: string;
  destinationType: 'host' | 'network';
  family: AddressFamily;
  gateway: string;
  gatewayZone: string;
  interface: string;
  /** `gateway`: via the gateway address; `link`: directly on the interface; `none`: the FIB has no route */
  nextHopMode: 'gateway' | 'link' | 'none';
  /** where the destination came from: `rule source`, `object <name> entry`, `object <name> resolution` */
  sourceHint: string;
  enabled: boolean;
  fib: number;
}

/**
 * Why a rule cannot have return routes, or null when it can: only a source-translating rule (SNAT, BINAT)
 * with policy routing on, exactly one egress interface and one address family.
 */
export function ineligibility(rule: NatRule): string | null {
  if (rule.type !== 'snat' && rule.type !== 'binat') return `NAT rule ${rule.id} is ${rule.type}: route suggestions need an snat or binat rule`;
  if (!rule.policyRouting) return `NAT rule ${rule.id} has policy routing off`;
  if (rule.egressInterfaces.length !== 1) return `NAT rule ${rule.id} has ${rule.egressInterfaces.length} egress interfaces: route suggestions need exactly one`;
  if (rule.family !== 'inet' && rule.family !== 'inet6') return `NAT rule ${rule.id} has family ${rule.family}: route suggestions need inet or inet6`;
  return null;
}

interface Candidate {
  destination: string;
  destinationType: 'host' | 'network';
  sourceHint: string;
}

/**
 * The destinations to route back: the rule's own source, then its network object's entries and
 * resolutions; only addresses and CIDRs of the rule's family (host names are represented by their
 * resolutions), each destination once (first hint wins). An address is a host route, a CIDR a network route
 * (normalised to its network address).
 */
export function candidates(rule: NatRule, object: NetworkObject | null, family: AddressFamily): Candidate[] {
  const raw: { text: string; hint: string }[] = [];
  if (rule.source) raw.push({ text: rule.source, hint: 'rule source' });
  for (const e of object?.entries ?? []) raw.push({ text: e, hint: `object ${object!.name} entry` });
  for (const r of object?.resolutions ?? []) raw.push({ text: r, hint: `object ${object!.name} resolution` });
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const { text, hint } of raw) {
    const trimmed = text.trim();
    if (familyOf(trimmed) !== family) continue;
    const prefix = parsePrefix(trimmed, family);
    if (!prefix) continue;
    const full = family === 'inet' ? 32 : 128;
    const isHost = !trimmed.includes('/') || prefix[1] === full;
    const destination = isHost ? `${prefix[0].toString()}/${full}` : `${networkAddress(prefix[0].toString(), prefix[1])}/${prefix[1]}`;
    if (seen.has(destination)) continue;
    seen.add(destination);
    out.push({ destination, destinationType: isHost ? 'host' : 'network', sourceHint: hint });
  }
  return out;
}

const networkAddress = (addr: string, len: number): string =>
  (ipaddr.parse(addr).kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6).networkAddressFromCIDR(`${addr}/${len}`).toString();

/** The routing table of `fib` the node last reported, or 409 when it reported none. */
function tableOf(inventory: HostInventory | null, nodeId: string, fib: number): RouteTable {
  const tables = (inventory?.routes as RouteTable[] | undefined) ?? [];
  const table = tables.find((t) => t.fib === fib);
  if (!table) throw conflict('routing_table_unavailable', `node ${nodeId} has not reported a routing table for FIB ${fib}`);
  return table;
}

/** Builds the suggestions of an eligible rule from its node's routing table (pure: the bench and tests call it directly). */
export function suggestRoutes(rule: NatRule, object: NetworkObject | null, table: RouteTable): RouteSuggestion[] {
  const family = rule.family as AddressFamily;
  const compiled = compileTable(table.routes.filter((r) => r.family === family));
  return candidates(rule, object, family).map((c) => {
    const route = longestPrefixMatch(compiled, parsePrefix(c.destination, family)!);
    const hop = route ? nextHopOf(route) : { nextHopMode: 'none' as const, gateway: '', gatewayZone: '', interface: '' };
    return {
      name: `nat${rule.id}-return-${c.destination}`,
      description: `Return route for NAT rule "${rule.name}" (${c.sourceHint})`,
      destination: c.destination,
      destinationType: c.destinationType,
      family,
      ...hop,
      sourceHint: c.sourceHint,
      enabled: rule.enabled,
      fib: table.fib,
    };
  });
}

/**
 * E18: the static return routes a policy-routed SNAT/BINAT rule needs, with each destination's next hop in
 * the FIB of the rule's egress interface. Read-only: nothing is changed and no task is planned.
 */
export async function natRouteSuggestions(db: Db, id: number): Promise<RouteSuggestion[]> {
  const rule = await requireNatRule(db, id);
  const why = ineligibility(rule);
  if (why) throw conflict('nat_rule_not_eligible', why);
  const [object, fib, node] = await Promise.all([
    findNetworkObject(db, rule.sourceObjectId),
    fibOfInterface(db, rule.nodeId, rule.egressInterfaces[0]),
    db.selectFrom('nodes').select('inventory').where('id', '=', rule.nodeId).executeTakeFirst(),
  ]);
  const table = tableOf((node?.inventory as HostInventory | undefined) ?? null, rule.nodeId, fib);
  return suggestRoutes(rule, object, table);
}
