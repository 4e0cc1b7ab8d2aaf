/**
 * E18 (GET /api/network/firewall/nat/{id}/route-suggestions) over a routing table of BENCH_E18_ROUTES routes
 * (default 10 000: /24s, /32 host routes and on-link /16s in FIB 0, as a large router's `netstat -rn` reports
 * them), on PGlite: the built function invoked in-process (auth and pipeline included) for a rule whose source and
 * network object give 8 candidates; the table is projected first, as an inventory report does. p50/p95 over BENCH_E18_N requests (default 300); target p95 ≤ 50 ms.
 */
import { randomUUID } from 'node:crypto';
import { apiEvent, lambdaContext } from './lib/events.ts';
import { loadHandler, messageOf, withQuietLog } from './lib/invoke.ts';
import { builtFunctions } from './lib/routes.ts';
import { fmtMs, percentile } from './lib/stats.ts';
import { withStore } from './lib/stores.ts';
import { runAlone, type Bench } from './lib/report.ts';
import type { RouteEntry } from '#domain/network/routes';
import { applyInventory } from '#domain/pools/apply-inventory';
import type { HostInventory } from '#domain/inventory';

const ROUTE = '/api/network/firewall/nat/{id}/route-suggestions';
const TARGET_MS = 50;

/** `n` distinct IPv4 routes: a default, on-link /16s, gateway /24s and host /32s spread over 10.0.0.0/8. */
function routes(n: number): RouteEntry[] {
  const out: RouteEntry[] = [{ family: 'inet', destination: 'default', gateway: '192.0.2.1', flags: 'UGS', interface: 'vtnet0' }];
  for (let b = 0; b < 256 && out.length < n; b++)
    out.push({ family: 'inet', destination: `10.${b}.0.0/16`, gateway: `link#${(b % 4) + 1}`, flags: 'U', interface: `vtnet${b % 4}` });
  for (let i = 0; out.length < n; i++) {
    const [b, c] = [i % 256, (i >> 8) % 256];
    out.push(
      i % 3 === 2
        ? { family: 'inet', destination: `10.${b}.${c}.${(i >> 16) + 7}`, gateway: `10.${b}.0.1`, flags: 'UGHS', interface: `vtnet${b % 4}` }
        : { family: 'inet', destination: `10.${b}.${c}.0/24`, gateway: `10.${b}.0.${(c % 250) + 2}`, flags: 'UGS', interface: `vtnet${b % 4}` },
    );
  }
  return out;
}

export const e18: Bench = {
  name: 'e18',
  async run() {
    const section = 'E18 NAT route suggestions (pglite)';
    const fn = builtFunctions().find((f) => f.route.path === ROUTE);
    if (!fn) return [{ section, what: 'suggestions', value: 'not built yet', ok: null, note: `no function serves GET ${ROUTE} with a bundle in dist/` }];
    const size = Number(process.env.BENCH_E18_ROUTES ?? 10_000);
    const n = Number(process.env.BENCH_E18_N ?? 300);
    return withStore('pglite', async (store) => {
      const nodeId = randomUUID();
      const table = routes(size);
      const inventory = { hostname: 'r', os: 'FreeBSD 14.1-RELEASE', cpus: 4, memoryBytes: 1, routes: [{ fib: 0, routes: table }] } satisfies HostInventory;
      await store.db
        .insertInto('nodes')
        .values({ id: nodeId, name: 'bench-router', ip: '192.0.2.10', status: 'member', inventory: JSON.stringify(inventory) })
        .execute();
      // as an inventory report does: the routing tables are projected into node_routes
      const t0 = performance.now();
      await applyInventory(store.db, nodeId, inventory);
      const projectMs = performance.now() - t0;
      const object = await store.db
        .insertInto('network_objects')
        .values({
          name: 'bench-lan',
          entries: ['10.1.2.0/24', '10.7.9.33', '10.200.0.0/16', 'files.example.net', '10.3.3.3'],
          resolutions: ['10.9.8.7', '10.44.1.2'],
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const rule = await store.db
        .insertInto('firewall_nat_rules')
        .values({
          node_id: nodeId,
          name: 'bench',
          type: 'snat',
          family: 'inet',
          source: '10.5.6.0/24',
          source_object_id: object.id,
          egress_interfaces: ['vtnet0'],
          policy_routing: true,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      process.env.DATABASE_URL = store.url;
      const handler = await loadHandler(fn.bundle, 'e18');
      const times: number[] = [];
      let failure = '';
      let count = 0;
      await withQuietLog(async () => {
        for (let i = -20; i < n; i++) {
          const ev = apiEvent({ method: 'GET', route: ROUTE, pathParameters: { id: String(rule.id) }, token: store.adminToken });
          const t0 = performance.now();
          const res = await handler(ev, lambdaContext());
          const ms = performance.now() - t0;
          if (res.statusCode !== 200) {
            failure ||= `${res.statusCode} ${messageOf(res)} ${String(res.body).slice(0, 200)}`;
            continue;
          }
          count = JSON.parse(String(res.body)).data.length;
          if (i >= 0) times.push(ms);
        }
      });
      const p95 = percentile(times, 95);
      return [
        {
          section,
          what: `suggestions over ${table.length.toLocaleString('en')} routes`,
          value: `p50 ${fmtMs(percentile(times, 50))} / p95 ${fmtMs(p95)}`,
          target: `p95 ≤ ${TARGET_MS} ms`,
          ok: failure ? false : p95 <= TARGET_MS,
          note: failure
            ? `a request failed: ${failure}`
            : `${times.length} requests, ${count} suggestions each (longest-prefix match per candidate by covering-prefix lookups in the projected table; projecting the table once took ${fmtMs(projectMs)})`,
        },
      ];
    });
  },
};

await runAlone(import.meta, e18);
