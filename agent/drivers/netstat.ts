import { runChecked, type Executor } from '../executors/executor.ts';
import { getSysctls } from './sysctl.ts';
import type { AddressFamily, RouteEntry, RouteTable } from '#shared/agent-api/inventory';

/**
 * `netstat -rn -F <fib> --libxo json`: one FIB's routing table. libxo's JSON is
 * `{"statistics": {"route-information": {"route-table": {"rt-family": [{"address-family": "Internet",
 * "rt-entry": [{"destination", "gateway", "flags", "interface-name", …}]}, {"address-family": "Internet6", …}]}}}}`;
 * libxo writes a list of one as that one object, so both shapes are read.
 */
const FAMILIES: Record<string, AddressFamily> = { Internet: 'inet', Internet6: 'inet6' };

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export function parseNetstatRoutes(stdout: string): RouteEntry[] {
  type Entry = Record<string, unknown>;
  type Family = { 'address-family'?: string; 'rt-entry'?: Entry | Entry[] };
  const doc = JSON.parse(stdout) as { statistics?: { 'route-information'?: { 'route-table'?: { 'rt-family'?: Family | Family[] } } } };
  const out: RouteEntry[] = [];
  for (const fam of asList(doc.statistics?.['route-information']?.['route-table']?.['rt-family'])) {
    const family = FAMILIES[fam['address-family'] ?? ''];
    // other families (link-layer, …) carry no IP routes
    if (!family) continue;
    for (const e of asList(fam['rt-entry'])) {
      out.push({
        family,
        destination: String(e.destination ?? ''),
        gateway: String(e.gateway ?? ''),
        flags: String(e.flags ?? ''),
        interface: String(e['interface-name'] ?? ''),
      });
    }
  }
  return out;
}

/** The routing table of one FIB. */
async function routeTable(exec: Executor, fib: number): Promise<RouteTable> {
  return { fib, routes: parseNetstatRoutes(await runChecked(exec, ['netstat', '-rn', '-F', String(fib), '--libxo', 'json'])) };
}

/** Every FIB's routing table; the number of FIBs is `sysctl net.fibs` (1 when the kernel does not say). */
export async function routeTables(exec: Executor): Promise<RouteTable[]> {
  const fibs = Number((await getSysctls(exec, ['net.fibs']).catch(() => new Map<string, string>())).get('net.fibs') ?? '1') || 1;
  const out: RouteTable[] = [];
  for (let fib = 0; fib < fibs; fib++) out.push(await routeTable(exec, fib));
  return out;
}
