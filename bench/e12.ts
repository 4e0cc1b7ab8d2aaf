/**
 * E12 (GET /api/cluster/backups/events/remote) over BENCH_E12_EVENTS backup events (default 100 000): the
 * built function invoked in-process (auth lookup and pipeline included, as a request would pay them), with a
 * rotating mix of search terms (broad, narrow, status, error text, no match), every whitelisted sort field in
 * both directions, and pages from the first to deep ones. p50/p95 over BENCH_E12_N requests (default 300),
 * on PGlite and on PostgreSQL; the target (p95 ≤ 50 ms) is PostgreSQL's.
 */
import { loadSchema } from '#scripts/build/compile-specs';
import { apiEvent, lambdaContext } from './lib/events.ts';
import { loadHandler, messageOf, withQuietLog } from './lib/invoke.ts';
import { builtFunctions } from './lib/routes.ts';
import { seedBackupEvents } from './lib/seed-backups.ts';
import { fmtMs, percentile } from './lib/stats.ts';
import { postgresUnavailable, withStore, type StoreKind } from './lib/stores.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const ROUTE = '/api/cluster/backups/events/remote';
const TARGET_MS = 50;
const SEARCHES = ['', 'tank', 'web17', 'failed', 'dataset is busy', 'backup3.example', 'no-such-text-anywhere', 'VM-1'];
const PAGES = [1, 2, 10, 40];
const SIZES = [25, 100];

/** Deterministic Fisher–Yates (mulberry32), so every run measures the same requests. */
function shuffle<T>(xs: T[], seed = 12): void {
  let a = seed;
  const rnd = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
}

/** The sort whitelist, from the schema itself (so the bench follows it), else the default field. */
async function sortFields(module: string): Promise<{ fieldKey: string; dirKey: string; fields: string[] } | null> {
  const schema = await loadSchema(module);
  const props = (schema?.query as { properties?: Record<string, { enum?: string[] }> } | undefined)?.properties ?? {};
  const fieldKey = Object.keys(props).find((k) => /^sort.*field/i.test(k));
  const dirKey = Object.keys(props).find((k) => /^sort.*dir/i.test(k));
  if (!fieldKey || !dirKey) return null;
  return { fieldKey, dirKey, fields: props[fieldKey].enum ?? ['startedAt'] };
}

async function measureE12(kind: StoreKind, events: number, n: number): Promise<Row[]> {
  const section = `E12 (${kind}, ${events.toLocaleString('en')} events)`;
  const fn = builtFunctions().find((f) => f.route.path === ROUTE);
  if (!fn)
    return [
      {
        section,
        what: 'search + sort + page',
        value: 'not built yet',
        ok: null,
        note: `no function serves GET ${ROUTE} in .generated/functions.yml with a bundle in dist/`,
      },
    ];
  const sort = await sortFields(fn.module);
  return withStore(kind, async (store) => {
    const seeded = performance.now();
    await seedBackupEvents(store.db, events);
    const seedMs = performance.now() - seeded;
    process.env.DATABASE_URL = store.url;
    process.env.HM_DB_POOL_MAX = '2';
    const handler = await loadHandler(fn.bundle, `e12-${kind}`);
    const fields = sort?.fields ?? [];
    // Every combination of search × sort field × direction × page × size, in a fixed shuffled order.
    const combos: Array<Record<string, string>> = [];
    for (const search of SEARCHES)
      for (const field of fields.length ? fields : [''])
        for (const dir of ['asc', 'desc'])
          for (const page of PAGES)
            for (const size of SIZES) {
              const q: Record<string, string> = { page: String(page), size: String(size) };
              if (search) q.search = search;
              if (sort && field) Object.assign(q, { [sort.fieldKey]: field, [sort.dirKey]: dir });
              combos.push(q);
            }
    shuffle(combos);
    const queries = Array.from({ length: n }, (_, i) => combos[i % combos.length]);
    const all: number[] = [];
    const searched: number[] = [];
    let failure = '';
    let rowsSeen = 0;
    await withQuietLog(async () => {
      for (let i = -20; i < n; i++) {
        const query = queries[(i + n) % n];
        const ev = apiEvent({ method: 'GET', route: ROUTE, token: store.adminToken, query });
        const t = performance.now();
        const res = await handler(ev, lambdaContext());
        const ms = performance.now() - t;
        if (i < 0) continue; // warm-up
        if (res.statusCode !== 200) {
          failure ||= `${res.statusCode} ${messageOf(res)} for ${new URLSearchParams(query)}: ${String(res.body).slice(0, 200)}`;
          continue;
        }
        rowsSeen += (JSON.parse(String(res.body)) as { data: { data: unknown[] } }).data.data.length;
        all.push(ms);
        if (query.search) searched.push(ms);
      }
    });
    const p95 = percentile(all, 95);
    const rows: Row[] = [
      {
        section,
        what: 'all queries',
        value: `p50 ${fmtMs(percentile(all, 50))} / p95 ${fmtMs(p95)}`,
        target: kind === 'postgres' ? `p95 ≤ ${TARGET_MS} ms` : undefined,
        ok: failure ? false : kind === 'postgres' ? p95 <= TARGET_MS : null,
        note: failure
          ? `a request failed: ${failure}`
          : `${all.length} requests: search ∈ ${JSON.stringify(SEARCHES)}, sort ∈ ${fields.length ? fields.join('/') : 'default'} × asc/desc, page ∈ ${PAGES.join('/')}, size ∈ ${SIZES.join('/')} (a fixed shuffle of the ${combos.length} combinations); ${rowsSeen} rows returned; seeded in ${fmtMs(seedMs)}`,
      },
      { section, what: '  with search', value: `p50 ${fmtMs(percentile(searched, 50))} / p95 ${fmtMs(percentile(searched, 95))}`, ok: null },
    ];
    if (!sort) rows.push({ section, what: '  sort', value: 'no sort parameters in the schema', ok: null });
    return rows;
  });
}

export const e12: Bench = {
  name: 'e12',
  async run() {
    const events = Number(process.env.BENCH_E12_EVENTS ?? 100_000);
    const n = Number(process.env.BENCH_E12_N ?? 300);
    const rows = await measureE12('pglite', events, n);
    const why = await postgresUnavailable();
    if (why) rows.push({ section: 'E12 (postgres)', what: 'all queries', value: 'skipped', target: `p95 ≤ ${TARGET_MS} ms`, ok: false, note: why });
    else rows.push(...(await measureE12('postgres', events, n)));
    return rows;
  },
};

await runAlone(import.meta, e12);
