/**
 * Warm in-process latency of the pipeline (log+envelope → auth → body limit → JSON → validation → handler):
 * the built bundles are imported once and invoked back to back with synthetic API Gateway v2 events, on PGlite
 * and on PostgreSQL. Paths:
 *   E25            GET /api/notifications/count, 200 (auth lookup + one count query)
 *   400            a POST whose body fails validation (auth lookup, then 400 and its audit row; no handler query)
 *   401            E25 without Authorization (no token lookup; the refusal's audit row)
 * and, for the split, the store statements alone through the same driver: the token lookup `verifyToken`
 * does, E25's `countActive` and the audit row `recordAudit` writes for a refused request. "Pipeline overhead
 * on the 400 path" = p50 of the 400 path minus p50 of the token lookup and of the audit row alone (CPU time
 * per request is shown beside it). The bench's source address is exempt from the failed-auth limit (as a
 * trusted monitor would be), so 2000 requests without a token stay 401s instead of turning into 429s. Both grow when other work loads the machine: run.ts
 * warns then. BENCH_PIPELINE_N requests per path (default 2000), in alternating warm blocks.
 * The per-request log line is written to /dev/null (built and written as always, just not shown).
 */
import { verifyToken } from '#shared/auth/tokens';
import { recordAudit } from '#store/audit';
import { countActive } from '#domain/notifications/counts';
import { apiEvent, lambdaContext, type EventOptions } from './lib/events.ts';
import { loadHandler, messageOf, withQuietLog, type Handler } from './lib/invoke.ts';
import { builtFunctions, compiledSpec, type BuiltFunction } from './lib/routes.ts';
import { fmtMs, percentile } from './lib/stats.ts';
import { postgresUnavailable, withStore, type StoreKind } from './lib/stores.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const OVERHEAD_TARGET_MS = 0.1;
const E25 = 'functions/notifications/count';
/** Preferred 400 paths, then any function that takes a body. */
const BODY_PREFERENCE = ['functions/cluster/notes-bulk-delete', 'functions/notifications/rules-bulk-delete'];

async function bodyFunction(fns: BuiltFunction[]): Promise<BuiltFunction | null> {
  const ordered = [...fns].sort((a, b) => {
    const pa = BODY_PREFERENCE.indexOf(a.module),
      pb = BODY_PREFERENCE.indexOf(b.module);
    return (pa < 0 ? 99 : pa) - (pb < 0 ? 99 : pb) || a.module.localeCompare(b.module);
  });
  for (const f of ordered) if (f.route.method !== '*' && (await compiledSpec(f.module))?.takesBody) return f;
  return null;
}

const p = (xs: number[]) => `p50 ${fmtMs(percentile(xs, 50))} / p95 ${fmtMs(percentile(xs, 95))}`;

interface Path {
  name: string;
  /** makes the next request's input (outside the timed region: the event arrives built) and returns the timed call */
  next: () => () => Promise<unknown>;
  /** for invocations: the status the path must answer */
  expect?: number;
  times: number[];
  /** process CPU time (user + system) spent in the path, summed over the measured runs, µs */
  cpuUs: number;
  wrong?: string;
}

const invocation = (name: string, handler: Handler, ev: EventOptions, expect: number): Path => {
  const path: Path = {
    name,
    expect,
    times: [],
    cpuUs: 0,
    next: () => {
      const event = apiEvent(ev);
      const context = lambdaContext();
      return async () => {
        const res = await handler(event, context);
        if (res.statusCode !== expect) path.wrong = `${res.statusCode} ${messageOf(res)}`;
      };
    },
  };
  return path;
};

/**
 * The paths are compared with each other (overhead = one minus another), so they must see the same machine:
 * load from other work drifts. Each path runs in blocks of consecutive requests (a warm Lambda serves one
 * function over and over, so its code stays hot; interleaving single requests of different bundles would
 * measure cache misses instead), and the blocks alternate between paths, `rounds` times over.
 */
async function alternatingBlocks(paths: Path[], n: number, rounds = 10, warmup = 25): Promise<void> {
  const block = Math.max(1, Math.ceil(n / rounds));
  for (let r = 0; r < rounds; r++) {
    for (const path of paths) {
      for (let i = 0; i < warmup + block; i++) {
        const call = path.next();
        const c = process.cpuUsage();
        const t = performance.now();
        await call();
        const wall = performance.now() - t;
        if (i < warmup) continue;
        const cpu = process.cpuUsage(c);
        path.times.push(wall);
        path.cpuUs += cpu.user + cpu.system;
      }
    }
  }
}

export async function measurePipeline(kind: StoreKind, n = Number(process.env.BENCH_PIPELINE_N ?? 2000)): Promise<Row[]> {
  const fns = builtFunctions();
  const e25 = fns.find((f) => f.module === E25);
  const withBody = await bodyFunction(fns);
  const section = `warm pipeline (${kind})`;
  if (!e25) return [{ section, what: 'E25', value: 'not built', ok: false }];
  return withStore(kind, async (store) => {
    process.env.DATABASE_URL = store.url;
    process.env.HM_DB_POOL_MAX = '2';
    process.env.HM_AUTH_FAIL_EXEMPT_CIDRS = '127.0.0.1/32';
    const count = await loadHandler(e25.bundle, kind);
    const ok = invocation('E25 GET /api/notifications/count (200)', count, { method: 'GET', route: e25.route.path, token: store.adminToken }, 200);
    const unauth = invocation('401 no token (pipeline + the audit row)', count, { method: 'GET', route: e25.route.path, token: null }, 401);
    const lookup: Path = { name: '  token lookup alone (verifyToken)', times: [], cpuUs: 0, next: () => () => verifyToken(store.db, store.adminToken) };
    const query: Path = { name: '  E25 query alone (countActive)', times: [], cpuUs: 0, next: () => () => countActive(store.db) };
    const auditRow = {
      tokenId: null,
      tokenName: 'bench',
      role: 'admin',
      sourceIp: '127.0.0.1',
      method: 'POST',
      route: '/api/cluster/notes/bulk-delete',
      resource: '',
      status: 400,
      taskId: null,
      requestId: 'bench',
    };
    const audit: Path = { name: '  audit row alone (recordAudit)', times: [], cpuUs: 0, next: () => () => recordAudit(store.db, auditRow) };
    const paths = [ok, lookup, query, audit, unauth];
    let bad: Path | undefined;
    if (withBody) {
      const post = await loadHandler(withBody.bundle, kind);
      // A JSON string where the schema wants an object: the validator's 400, after auth and JSON parsing.
      bad = invocation(
        `400 bad body (${withBody.route.method} ${withBody.route.path})`,
        post,
        { method: withBody.route.method, route: withBody.route.path, token: store.adminToken, body: '"bench"' },
        400,
      );
      paths.push(bad);
    }
    await withQuietLog(() => alternatingBlocks(paths, n));
    const p50 = (x: Path) => percentile(x.times, 50);
    const cpu = (x: Path) => x.cpuUs / x.times.length / 1000; // ms per request
    const v = (x: Path) => `${p(x.times)}; CPU ${fmtMs(cpu(x))}`;
    const wrong = (x: Path) => (x.wrong ? { ok: false, note: `answered ${x.wrong}, not ${x.expect}` } : { ok: null });
    const rows: Row[] = [
      { section, what: ok.name, value: v(ok), ...wrong(ok) },
      { section, what: lookup.name, value: v(lookup), ok: null },
      { section, what: query.name, value: v(query), ok: null },
      {
        section,
        what: '  E25 pipeline overhead (E25 − lookup − query)',
        ok: null,
        value: `wall p50 ${fmtMs(p50(ok) - p50(lookup) - p50(query))}; CPU ${fmtMs(cpu(ok) - cpu(lookup) - cpu(query))}`,
      },
      { section, what: audit.name, value: v(audit), ok: null },
      { section, what: unauth.name, value: v(unauth), ...wrong(unauth) },
    ];
    if (!bad) {
      rows.push({ section, what: '400 bad body', value: 'no function takes a body yet', ok: null });
      return rows;
    }
    const overhead = p50(bad) - p50(lookup) - p50(audit);
    rows.push(
      { section, what: bad.name, value: v(bad), ...wrong(bad) },
      {
        section,
        what: '  400 pipeline overhead (400 − token lookup − audit row)',
        value: `wall p50 ${fmtMs(overhead)}; CPU ${fmtMs(cpu(bad) - cpu(lookup) - cpu(audit))}`,
        target: 'wall ≤ 100 µs',
        ok: !bad.wrong && overhead <= OVERHEAD_TARGET_MS,
        note: `log line, envelope, body limit, JSON parse, validation and error render on top of the store's two round trips (token lookup, audit row): difference of p50 latencies over ${n} requests per path (alternating blocks); CPU = process.cpuUsage mean difference (all threads, so GC included)`,
      },
    );
    return rows;
  });
}

export const pipeline: Bench = {
  name: 'pipeline',
  async run() {
    const rows = await measurePipeline('pglite');
    const why = await postgresUnavailable();
    if (why) rows.push({ section: 'warm pipeline (postgres)', what: 'all', value: 'skipped', ok: null, note: why });
    else rows.push(...(await measurePipeline('postgres')));
    return rows;
  },
};

await runAlone(import.meta, pipeline);
