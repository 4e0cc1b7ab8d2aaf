import type ipaddr from 'ipaddr.js';
import type { AddressFamily, RouteEntry } from '#shared/agent-api/inventory';
import type { IpLibrary } from '#shared/auth/ip-library';

/**
 * The node's routing tables as the agent reports them in its inventory (`routes` section, declared with the agent
 * wire in shared/agent-api/inventory.ts): one table per FIB, longest-prefix matching over them here.
 */
export type { AddressFamily, RouteEntry, RouteTable } from '#shared/agent-api/inventory';

export type Prefix = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** How a route reaches its destination: through a gateway address, or directly on the link (`link#N`, an interface name). */
export interface NextHop {
  nextHopMode: 'gateway' | 'link';
  gateway: string;
  gatewayZone: string;
  interface: string;
}

/** Clears the bits of `bytes` (an address, network order) after the first `len`. */
function clearHostBits(bytes: number[], len: number): void {
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.min(8, Math.max(0, len - 8 * i));
    bytes[i] &= (0xff << (8 - keep)) & 0xff;
  }
}

/**
 * The prefix arithmetic over `ipaddr` (ipaddr.js): callers that import it anyway pass it; the inventory's route
 * projection loads it only when a table changed (shared/auth/ip-library.ts), so agent/register and
 * agent/inventory do not compile it at every cold start.
 */
export function routeMath(ipaddr: IpLibrary) {
  /** The address family of an IP address or CIDR, or null when it is neither. */
  function familyOf(text: string): AddressFamily | null {
    const addr = text.split('/')[0];
    if (!ipaddr.isValid(addr)) return null;
    return ipaddr.parse(addr).kind() === 'ipv4' ? 'inet' : 'inet6';
  }

  /** `addr`, `addr/len` or `default` of `family` as a prefix (a bare address is a host route); null when unreadable. */
  function parsePrefix(text: string, family: AddressFamily): Prefix | null {
    const full = family === 'inet' ? 32 : 128;
    if (text === 'default') return [family === 'inet' ? ipaddr.IPv4.parse('0.0.0.0') : ipaddr.IPv6.parse('::'), 0];
    const [addrText, lenText] = text.split('/');
    // netstat scopes link-local destinations (`fe80::%em0/64`); the zone does not change the prefix
    const addr = addrText.replace(/%.*$/, '');
    if (!ipaddr.isValid(addr)) return null;
    const parsed = ipaddr.parse(addr);
    if ((parsed.kind() === 'ipv4') !== (family === 'inet')) return null;
    const len = lenText === undefined ? full : Number(lenText);
    if (!Number.isInteger(len) || len < 0 || len > full || (lenText !== undefined && !/^\d+$/.test(lenText))) return null;
    return [parsed, len];
  }

  /**
   * The key of a prefix: its network address (host bits cleared) in ipaddr.js's normal text, then `/len`
   * (`10.1.2.0/24`, `2001:db8::/64`, `0.0.0.0/0` for an IPv4 default). Routes are stored under it and looked up by it.
   */
  function prefixKey([addr, len]: Prefix): string {
    const bytes = addr.toByteArray();
    clearHostBits(bytes, len);
    return `${ipaddr.fromByteArray(bytes).toString()}/${len}`;
  }

  /**
   * The keys of every prefix that contains `target`, most specific first: its own length down to /0 (at
   * most 33 for IPv4, 129 for IPv6). The longest-prefix match of a table is the first of these it holds.
   */
  function coveringKeys([addr, len]: Prefix): string[] {
    const bytes = addr.toByteArray();
    const out: string[] = [];
    for (let l = len; l >= 0; l--) {
      clearHostBits(bytes, l);
      out.push(`${ipaddr.fromByteArray(bytes).toString()}/${l}`);
    }
    return out;
  }

  /**
   * A table's routes by prefix key, for longest-prefix matching: routes that reject or blackhole traffic
   * (flags R, B) are no next hop and unreadable destinations are left out; of several routes with one prefix
   * (link-local `fe80::%em0/64` and `fe80::%em1/64`) the first in netstat's order wins.
   */
  function indexRoutes(routes: RouteEntry[]): Map<string, RouteEntry> {
    const out = new Map<string, RouteEntry>();
    for (const entry of routes) {
      if (/[RB]/.test(entry.flags)) continue;
      const prefix = parsePrefix(entry.destination, entry.family);
      if (!prefix) continue;
      const key = prefixKey(prefix);
      if (!out.has(key)) out.set(key, entry);
    }
    return out;
  }

  /** The most specific route for `target` among routes indexed by prefix key (longest-prefix match), or null. */
  function longestPrefixMatch(routes: ReadonlyMap<string, RouteEntry>, target: Prefix): RouteEntry | null {
    for (const key of coveringKeys(target)) {
      const route = routes.get(key);
      if (route) return route;
    }
    return null;
  }

  function nextHopOf(entry: RouteEntry): NextHop {
    const [address, zone = ''] = entry.gateway.split('%');
    if (!ipaddr.isValid(address)) return { nextHopMode: 'link', gateway: '', gatewayZone: '', interface: entry.interface };
    return { nextHopMode: 'gateway', gateway: address, gatewayZone: zone, interface: entry.interface };
  }

  return { familyOf, parsePrefix, prefixKey, coveringKeys, indexRoutes, longestPrefixMatch, nextHopOf };
}
