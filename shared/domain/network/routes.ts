import ipaddr from 'ipaddr.js';

/**
 * The node's routing tables as the agent reports them in its inventory (`routes` section): one table per
 * FIB, each entry as `netstat -rn -F <fib> --libxo json` prints it (destination `default`, an address or
 * `addr/len`, IPv6 ones possibly with a `%zone`; gateway an address, `link#N` or an interface name).
 */
export type AddressFamily = 'inet' | 'inet6';

export interface RouteEntry {
  family: AddressFamily;
  destination: string;
  gateway: string;
  flags: string;
  interface: string;
}

export interface RouteTable {
  fib: number;
  routes: RouteEntry[];
}

export type Prefix = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The address family of an IP address or CIDR, or null when it is neither. */
export function familyOf(text: string): AddressFamily | null {
  const addr = text.split('/')[0];
  if (!ipaddr.isValid(addr)) return null;
  return ipaddr.parse(addr).kind() === 'ipv4' ? 'inet' : 'inet6';
}

/** `addr`, `addr/len` or `default` of `family` as a prefix (a bare address is a host route); null when unreadable. */
export function parsePrefix(text: string, family: AddressFamily): Prefix | null {
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

/** Whether prefix `outer` contains every address of prefix `inner` (same family). */
function covers(outer: Prefix, inner: Prefix): boolean {
  if (outer[1] > inner[1] || outer[0].kind() !== inner[0].kind()) return false;
  return (inner[0] as ipaddr.IPv4).match(outer as [ipaddr.IPv4, number]);
}

/**
 * The most specific route of `table` for `target` in its family (longest-prefix match); routes that
 * reject or blackhole traffic (flags R, B) are no next hop. A table can be searched many times: parse
 * it once with {@link compileTable}.
 */
export interface CompiledRoute {
  prefix: Prefix;
  entry: RouteEntry;
}

export function compileTable(routes: RouteEntry[]): CompiledRoute[] {
  const out: CompiledRoute[] = [];
  for (const entry of routes) {
    if (/[RB]/.test(entry.flags)) continue;
    const prefix = parsePrefix(entry.destination, entry.family);
    if (prefix) out.push({ prefix, entry });
  }
  return out;
}

export function longestPrefixMatch(table: CompiledRoute[], target: Prefix): RouteEntry | null {
  let best: CompiledRoute | null = null;
  for (const r of table) {
    if ((!best || r.prefix[1] > best.prefix[1]) && covers(r.prefix, target)) best = r;
  }
  return best?.entry ?? null;
}

/** How a route reaches its destination: through a gateway address, or directly on the link (`link#N`, an interface name). */
export interface NextHop {
  nextHopMode: 'gateway' | 'link';
  gateway: string;
  gatewayZone: string;
  interface: string;
}

export function nextHopOf(entry: RouteEntry): NextHop {
  const [address, zone = ''] = entry.gateway.split('%');
  if (!ipaddr.isValid(address)) return { nextHopMode: 'link', gateway: '', gatewayZone: '', interface: entry.interface };
  return { nextHopMode: 'gateway', gateway: address, gatewayZone: zone, interface: entry.interface };
}
