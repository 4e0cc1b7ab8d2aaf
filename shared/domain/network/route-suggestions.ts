import ipaddr from 'ipaddr.js';
import { conflict } from '#shared/errors/domain-errors';
import type { Db } from '#store/tables';
import { routeMath, type AddressFamily, type Prefix, type RouteEntry } from './routes.ts';
import { hasRouteTable, routesByKey } from './route-projection.ts';
import { fibOfInterface, findNetworkObject, requireNatRule, type NatRule, type NetworkObject } from './nat-rules.ts';

const { coveringKeys, familyOf, longestPrefixMatch, nextHopOf, parsePrefix } = routeMath(ipaddr);

/** One static return route E18 suggests (the spec's "Firewall NAT route suggestion"). */
interface RouteSuggestion {
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
function ineligibility(rule: NatRule): string | null {
  if (rule.type !== 'snat' && rule.type !== 'binat') return `NAT rule ${rule.id} is ${rule.type}: route suggestions need an snat or binat rule`;
  if (!rule.policyRouting) return `NAT rule ${rule.id} has policy routing off`;
  if (rule.egressInterfaces.length !== 1)
    return `NAT rule ${rule.id} has ${rule.egressInterfaces.length} egress interfaces: route suggestions need exactly one`;
  if (rule.family !== 'inet' && rule.family !== 'inet6') return `NAT rule ${rule.id} has family ${rule.family}: route suggestions need inet or inet6`;
  return null;
}

interface Candidate {
  destination: string;
  prefix: Prefix;
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
    out.push({ destination, prefix: parsePrefix(destination, family)!, destinationType: isHost ? 'host' : 'network', sourceHint: hint });
  }
  return out;
}

const networkAddress = (addr: string, len: number): string =>
  (ipaddr.parse(addr).kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6).networkAddressFromCIDR(`${addr}/${len}`).toString();

/**
 * Builds the suggestions of an eligible rule: each candidate's next hop is its longest-prefix match among
 * `routes`, the FIB's routes of the rule's family by prefix key (all of them, or at least those under the
 * candidates' covering keys). No store access.
 */
function suggestRoutes(rule: NatRule, list: Candidate[], fib: number, routes: ReadonlyMap<string, RouteEntry>): RouteSuggestion[] {
  const family = rule.family as AddressFamily;
  return list.map((c) => {
    const route = longestPrefixMatch(routes, c.prefix);
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
      fib,
    };
  });
}

/**
 * E18: the static return routes a policy-routed SNAT/BINAT rule needs, with each destination's next hop in
 * the FIB of the rule's egress interface (409 when the node reported no table for that FIB). Only the routes
 * that could contain a candidate are read: the node's projected table is looked up by the candidates'
 * covering prefixes. Read-only: nothing is changed and no task is planned.
 */
export async function natRouteSuggestions(db: Db, id: number): Promise<RouteSuggestion[]> {
  const rule = await requireNatRule(db, id);
  const why = ineligibility(rule);
  if (why) throw conflict('nat_rule_not_eligible', why);
  const family = rule.family as AddressFamily;
  const [object, fib] = await Promise.all([findNetworkObject(db, rule.sourceObjectId), fibOfInterface(db, rule.nodeId, rule.egressInterfaces[0])]);
  const list = candidates(rule, object, family);
  const keys = [...new Set(list.flatMap((c) => coveringKeys(c.prefix)))];
  const [reported, routes] = await Promise.all([hasRouteTable(db, rule.nodeId, fib), routesByKey(db, rule.nodeId, fib, family, keys)]);
  if (!reported) throw conflict('routing_table_unavailable', `node ${rule.nodeId} has not reported a routing table for FIB ${fib}`);
  return suggestRoutes(rule, list, fib, routes);
}
