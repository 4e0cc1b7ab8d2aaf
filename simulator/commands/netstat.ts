import ipaddr from 'ipaddr.js';
import { getopt, splitLibxo } from '../format.ts';
import { fail, registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { registerSysctlProvider } from '../sysctl-tree.ts';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * netstat(1) of FreeBSD 14, routing tables only: `netstat -rn [-4|-6|-f inet|inet6] [-F fib] [--libxo json]`
 * from the seed's `routing` section, and `sysctl net.fibs`. The JSON is byte for byte the shape of
 * test/fixtures/freebsd/netstat-rn-libxo-json-freebsd14.txt (per entry: destination, gateway, flags,
 * flags_pretty, weight, nhop-kidx, interface-name); the text form is netstat's `Routing tables` listing.
 */
type SimRoute = NonNullable<SimHost['routing']>['routes'][number];

const FLAG_NAMES: Record<string, string> = {
  U: 'up',
  G: 'gateway',
  H: 'host',
  S: 'static',
  B: 'blackhole',
  R: 'reject',
  D: 'dynamic',
  M: 'modified',
  '1': 'proto1',
  '2': 'proto2',
  '3': 'proto3',
  b: 'broadcast',
};
const FAMILY_NAMES = { inet: 'Internet', inet6: 'Internet6' } as const;

const fibCount = (state: SimHost) => state.routing?.fibs ?? Math.max(0, ...(state.routing?.routes ?? []).map((r) => r.fib ?? 0)) + 1;

const flagsOf = (r: SimRoute) => r.flags ?? (ipaddr.isValid(r.gateway.split('%')[0]) ? 'UGS' : r.destination.includes('/') ? 'U' : 'UHS');

/** netstat sorts by the destination's address (the radix tree's order): default first, then by bytes, shorter prefix first. */
function sortKey(r: SimRoute): [number[], number] {
  if (r.destination === 'default') return [[], 0];
  const [addr, len] = r.destination.split('/');
  const parsed = ipaddr.parse(addr.replace(/%.*$/, ''));
  return [parsed.toByteArray(), len === undefined ? (r.family === 'inet' ? 32 : 128) : Number(len)];
}
function compare(a: SimRoute, b: SimRoute): number {
  const [ba, la] = sortKey(a);
  const [bb, lb] = sortKey(b);
  for (let i = 0; i < Math.max(ba.length, bb.length); i++) {
    const d = (ba[i] ?? -1) - (bb[i] ?? -1);
    if (d) return d;
  }
  return la - lb;
}

const str = JSON.stringify;

function jsonEntry(r: SimRoute, kidx: number): string {
  const flags = flagsOf(r);
  const pretty = [...flags]
    .map((f) => FLAG_NAMES[f])
    .filter(Boolean)
    .map((f) => str(f))
    .join(',');
  return `{"destination":${str(r.destination)},"gateway":${str(r.gateway)},"flags":${str(flags)}, "flags_pretty": [${pretty}],"weight":1,"nhop-kidx":${kidx},"interface-name":${str(r.interface)}}`;
}

function netstat(ctx: CommandContext) {
  const { args, libxo } = splitLibxo(ctx.args);
  const o = getopt(args, '46rnWF:f:');
  if (!o.flags.has('r')) return fail('netstat: the simulator answers routing tables only (-r)');
  const fibText = o.values.get('F') ?? '0';
  const fib = /^\d+$/.test(fibText) ? Number(fibText) : Number.NaN;
  if (Number.isNaN(fib)) return fail(`netstat: ${fibText}: invalid fib`);
  if (fib >= fibCount(ctx.state)) return fail(`netstat: ${fibText}: invalid fib`);
  const only = o.flags.has('4') ? 'inet' : o.flags.has('6') ? 'inet6' : (o.values.get('f') ?? null);
  if (only !== null && only !== 'inet' && only !== 'inet6') return fail(`netstat: ${only}: unknown address family`);
  const routes = (ctx.state.routing?.routes ?? []).filter((r) => (r.fib ?? 0) === fib);
  const families = (['inet', 'inet6'] as const).filter((f) => (only === null || only === f) && routes.some((r) => r.family === f));
  const byFamily = families.map((f) => ({ f, routes: routes.filter((r) => r.family === f).sort(compare) }));
  if (libxo !== null && libxo.split(',').includes('json')) {
    let kidx = 0;
    const parts = byFamily.map(
      ({ f, routes: rs }) => `{"address-family":"${FAMILY_NAMES[f]}", "rt-entry": [\n${rs.map((r) => jsonEntry(r, ++kidx)).join(',\n')}\n]}`,
    );
    return { stdout: `{"statistics": {"route-information": {"route-table": {"rt-family": [\n${parts.join(',\n')}]}}}}\n` };
  }
  const blocks = byFamily.map(({ f, routes: rs }) => {
    const w = f === 'inet' ? 18 : 39;
    const rows = rs.map((r) => `${r.destination.padEnd(w)} ${r.gateway.padEnd(w)} ${flagsOf(r).padEnd(8)} ${r.interface.padStart(6)}\n`);
    return `\n${FAMILY_NAMES[f]}:\n${'Destination'.padEnd(w)} ${'Gateway'.padEnd(w)} Flags     Netif Expire\n${rows.join('')}`;
  });
  return { stdout: `Routing tables\n${blocks.join('')}` };
}

registerCommand('netstat', withUsage(netstat, '\tnetstat -r [-46AnW] [-F fibnum] [-f protocol-family]'));

// the kernel's number of FIBs (a loader tunable)
registerSysctlProvider('net-fibs', (state) => [
  { name: 'net.fibs', type: 'integer', value: String(fibCount(state)), writable: false, tunable: true, description: 'Number of available FIBs' },
]);
