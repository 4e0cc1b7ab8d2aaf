/**
 * E14 (GET /api/zfs/dashboard/history/delta) over BENCH_E14_ROWS stored telemetry rows (default 1 000 000:
 * 10 nodes × 4 pools, pool and ARC rows every 10 s), on PostgreSQL: the built function invoked in-process
 * (auth and pipeline included) with the requests a dashboard makes — polls 1, 3 and 30 samples behind (the
 * steady state and a tab woken after 5 min), one pool's poll, a fresh client (cursors 0: more than 10 000 newer
 * rows → resetRequired and the latest hour), and a cursor ahead of the head. p50/p95 over BENCH_E14_N requests
 * (default 600); target p95 ≤ 20 ms.
 */
import { apiEvent, lambdaContext } from './lib/events.ts';
import { loadHandler, messageOf, withQuietLog } from './lib/invoke.ts';
import { builtFunctions } from './lib/routes.ts';
import { e14PoolGuid, poolRowsPerSample, seedTelemetry, totalRows, type TelemetryLayout } from './lib/seed-telemetry.ts';
import { fmtMs, percentile } from './lib/stats.ts';
import { postgresUnavailable, withStore } from './lib/stores.ts';
import { runAlone, type Bench } from './lib/report.ts';

const ROUTE = '/api/zfs/dashboard/history/delta';
const TARGET_MS = 20;

interface Case {
  name: string;
  query: (heads: { pool: number; arc: number }) => Record<string, string>;
}

function cases(l: TelemetryLayout): Case[] {
  const perSample = poolRowsPerSample(l);
  const behind = (samples: number) => (h: { pool: number; arc: number }) => ({
    poolAfter: String(h.pool - samples * perSample),
    arcAfter: String(h.arc - samples * l.nodes),
  });
  return [
    { name: 'poll, 1 sample behind', query: behind(1) },
    { name: 'poll, 3 samples behind', query: behind(3) },
    { name: 'poll, 30 samples (5 min) behind', query: behind(30) },
    { name: 'poll of one pool', query: (h) => ({ ...behind(3)(h), poolGuid: e14PoolGuid(0, 1) }) },
    { name: 'fresh client (cursors 0 → reset, latest hour)', query: () => ({ poolAfter: '0', arcAfter: '0' }) },
    { name: 'cursor ahead of head (→ reset)', query: (h) => ({ poolAfter: String(h.pool + 1000), arcAfter: String(h.arc) }) },
  ];
}

export const e14: Bench = {
  name: 'e14',
  async run() {
    const section = 'E14 delta (postgres)';
    const fn = builtFunctions().find((f) => f.route.path === ROUTE);
    if (!fn) return [{ section, what: 'delta', value: 'not built yet', ok: null, note: `no function serves GET ${ROUTE} with a bundle in dist/` }];
    const why = await postgresUnavailable();
    if (why) return [{ section, what: 'delta', value: 'skipped', target: `p95 ≤ ${TARGET_MS} ms`, ok: false, note: why }];
    const want = Number(process.env.BENCH_E14_ROWS ?? 1_000_000);
    const n = Number(process.env.BENCH_E14_N ?? 600);
    const layout: TelemetryLayout = { nodes: 10, poolsPerNode: 4, samples: Math.max(400, Math.round(want / (10 * 5))) };
    return withStore('postgres', async (store) => {
      const t = performance.now();
      await seedTelemetry(store.db, layout);
      const seedMs = performance.now() - t;
      process.env.DATABASE_URL = store.url;
      process.env.HM_DB_POOL_MAX = '2';
      const handler = await loadHandler(fn.bundle, 'e14');
      const heads = { pool: layout.samples * layout.nodes * layout.poolsPerNode, arc: layout.samples * layout.nodes };
      const cs = cases(layout);
      const byCase = new Map<string, number[]>(cs.map((c) => [c.name, []]));
      const all: number[] = [];
      let failure = '';
      await withQuietLog(async () => {
        for (let i = -cs.length * 3; i < n; i++) {
          const c = cs[(i + cs.length * 3) % cs.length];
          const query = c.query(heads);
          const ev = apiEvent({ method: 'GET', route: ROUTE, token: store.adminToken, query });
          const t0 = performance.now();
          const res = await handler(ev, lambdaContext());
          const ms = performance.now() - t0;
          if (res.statusCode !== 200) {
            failure ||= `${c.name}: ${res.statusCode} ${messageOf(res)} ${String(res.body).slice(0, 200)}`;
            continue;
          }
          if (i < 0) continue;
          all.push(ms);
          byCase.get(c.name)!.push(ms);
        }
      });
      const p95 = percentile(all, 95);
      return [
        {
          section,
          what: `all requests (${totalRows(layout).toLocaleString('en')} rows stored)`,
          value: `p50 ${fmtMs(percentile(all, 50))} / p95 ${fmtMs(p95)}`,
          target: `p95 ≤ ${TARGET_MS} ms`,
          ok: failure ? false : p95 <= TARGET_MS,
          note: failure
            ? `a request failed: ${failure}`
            : `${all.length} requests, the ${cs.length} kinds below in turn (so resets are 1 in 3: a heavier mix than a dashboard's); ${layout.nodes} nodes × ${layout.poolsPerNode} pools × ${layout.samples} samples, the primary node read; seeded in ${fmtMs(seedMs)}`,
        },
        ...cs.map((c) => {
          const xs = byCase.get(c.name)!;
          const p = percentile(xs, 95);
          return {
            section,
            what: `  ${c.name}`,
            value: `p50 ${fmtMs(percentile(xs, 50))} / p95 ${fmtMs(p)}`,
            target: `p95 ≤ ${TARGET_MS} ms`,
            ok: !failure && p <= TARGET_MS,
          };
        }),
      ];
    });
  },
};

await runAlone(import.meta, e14);
