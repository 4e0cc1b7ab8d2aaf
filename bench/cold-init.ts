/**
 * Cold init: a fresh `node` process imports one function bundle and answers its first invocation (a synthetic
 * API Gateway v2 event with an admin token, against a migrated store), then exits. Its wall time, spawn to
 * exit, is compared with a bare `node -e ''` measured in the same rounds (interleaved, so load from other work
 * on the machine hits both alike); the median over rounds of (function ÷ bare node) is the number with the
 * ≤ 2.0× target. The largest bundle and E25 are measured again with Node's module compile cache
 * (NODE_COMPILE_CACHE) already written by an untimed run: what a process gets when its cache survives (the
 * agent and local stack on one machine; on Lambda only if the cache shipped in the package). The function's process gets only its own environment (as on Lambda); a second pair of lines
 * shows the same with this shell's environment when that has variables that slow node's own start.
 *
 * Many functions: a sample is measured (BENCH_COLD_BUNDLES, default 6) — always the largest bundle and E25,
 * the rest spread over the size range. BENCH_COLD_RUNS (default 9) rounds.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { load } from 'js-yaml';
import { builtinsViaRequire, REQUIRE_BANNER } from '#scripts/build/builtins-require';
import { pgCuts } from '#scripts/build/pg-cuts';
import { apiEvent } from './lib/events.ts';
import { builtFunctions, compiledSpec, type BuiltFunction } from './lib/routes.ts';
import { fmtKB, fmtMs, median } from './lib/stats.ts';
import { postgresUnavailable, withStore, type StoreKind } from './lib/stores.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const TARGET = 2.0;
const RUNNER = resolve('bench/lib/cold-runner.mjs');

interface Sample {
  wallMs: number;
  importMs?: number;
  invokeMs?: number;
  status?: number;
  message?: string;
  error?: string;
}

/** Spawns one process and times it from spawn to exit. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolvePromise, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - t;
      const line = err.split('\n').find((l) => l.startsWith('@@bench '));
      const out = line ? (JSON.parse(line.slice(8)) as Partial<Sample>) : {};
      if (code !== 0 && !out.error) out.error = `exit ${code}: ${err.slice(-400)}`;
      resolvePromise({ wallMs, ...out });
    });
  });
}

/** The largest, E25, then evenly spread over the rest by size. */
function pick(fns: BuiltFunction[], n: number): BuiltFunction[] {
  const bySize = [...fns].sort((a, b) => b.bytes - a.bytes);
  const chosen = new Set<BuiltFunction>([bySize[0]]);
  const e25 = fns.find((f) => f.module === 'functions/notifications/count');
  if (e25) chosen.add(e25);
  const rest = bySize.filter((f) => !chosen.has(f));
  const want = Math.max(0, n - chosen.size);
  for (let i = 0; i < want && i < rest.length; i++) chosen.add(rest[Math.floor((i * rest.length) / want)]);
  return [...chosen];
}

async function firstEvent(f: BuiltFunction, token: string) {
  const spec = await compiledSpec(f.module);
  const hasBody = Boolean(spec?.takesBody);
  return apiEvent({ method: f.route.method === '*' ? 'GET' : f.route.method, route: f.route.path, token, body: hasBody ? '{}' : undefined });
}

interface Subject {
  label: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  fn?: BuiltFunction;
  samples: Sample[];
  /** the bare node this one is compared with, round by round (default: the one with the same env) */
  bare?: Subject;
}

/** bench/lib/store-floor.ts bundled as the build bundles a function (minified ESM, builtins through require, pg's cuts). */
async function bundleStoreFloor(dir: string): Promise<{ file: string; bytes: number }> {
  const file = join(dir, 'store-floor.mjs');
  await esbuild.build({
    entryPoints: [resolve('bench/lib/store-floor.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: true,
    logLevel: 'error',
    banner: { js: REQUIRE_BANNER },
    external: ['pg-native', 'cloudflare:sockets'],
    plugins: [builtinsViaRequire, ...pgCuts],
  });
  return { file, bytes: statSync(file).size };
}

/** NODE_OPTIONS as serverless.yml gives the functions, if it does. */
function functionNodeOptions(): string | undefined {
  const yml = load(readFileSync('serverless.yml', 'utf8')) as { provider?: { environment?: Record<string, unknown> } };
  const v = yml.provider?.environment?.NODE_OPTIONS;
  return typeof v === 'string' && v ? v : undefined;
}

/** Environment variables that change how fast node itself starts (this machine sets NODE_EXTRA_CA_CERTS). */
const STARTUP_VARS = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'NODE_COMPILE_CACHE', 'UV_THREADPOOL_SIZE'];

export async function measureColdInit(kind: StoreKind, opts: { bundles?: number; runs?: number } = {}): Promise<Row[]> {
  const runs = opts.runs ?? Number(process.env.BENCH_COLD_RUNS ?? 9);
  const fns = pick(builtFunctions(), opts.bundles ?? Number(process.env.BENCH_COLD_BUNDLES ?? 6));
  const section = `cold init (${kind})`;
  if (fns.length === 0) return [{ section, what: 'functions', value: 'none built', ok: false }];
  return withStore(kind, async (store) => {
    const dir = mkdtempSync(join(tmpdir(), 'hm-bench-cold-'));
    try {
      // What Lambda gives a function: its serverless.yml environment (pool of 2, and node's own options if it set
      // any: --enable-source-maps cost ≈ 6–8 ms a start), nothing inherited from here.
      const nodeOptions = functionNodeOptions();
      const clean: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: store.url,
        HM_DB_POOL_MAX: '2',
        TZ: 'UTC',
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      };
      const inheritedVars = STARTUP_VARS.filter((v) => process.env[v]);
      const inherited: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: store.url, HM_DB_POOL_MAX: '2' };
      const noop = join(dir, 'noop.mjs');
      writeFileSync(noop, `export const handler = async () => ({ statusCode: 200, body: ${JSON.stringify(JSON.stringify({ message: 'noop' }))} });\n`);
      const noopEvent = join(dir, 'noop-event.json');
      writeFileSync(noopEvent, JSON.stringify(apiEvent({ method: 'GET', route: '/api/noop', token: store.adminToken })));
      const floor = await bundleStoreFloor(dir);
      const subjects: Subject[] = [
        { label: "bare node -e ''", args: ['-e', ''], env: clean, samples: [] },
        { label: 'no-op ESM handler (harness floor)', args: [RUNNER, noop, noopEvent], env: clean, samples: [] },
        { label: `store floor: node:crypto + pg connect + SELECT 1 (${fmtKB(floor.bytes)})`, args: [RUNNER, floor.file, noopEvent], env: clean, samples: [] },
      ];
      for (const [i, f] of fns.entries()) {
        const file = join(dir, `event-${i}.json`);
        writeFileSync(file, JSON.stringify(await firstEvent(f, store.adminToken)));
        subjects.push({ label: `${f.module.replace(/^functions\//, '')} (${fmtKB(f.bytes)})`, args: [RUNNER, f.bundle, file], env: clean, fn: f, samples: [] });
      }
      const bareClean = subjects[0];
      const cacheDir = join(dir, 'compile-cache');
      const cached: NodeJS.ProcessEnv = { ...clean, NODE_COMPILE_CACHE: cacheDir };
      for (const f of fns.slice(0, 2)) {
        const x = subjects.find((s) => s.fn === f)!;
        subjects.push({ ...x, label: `${x.label}, compile cache warm`, env: cached, samples: [], bare: bareClean });
        await timed(x.args, cached); // writes the cache
      }
      if (inheritedVars.length) {
        subjects.push({ label: `bare node, with ${inheritedVars.join(', ')}`, args: ['-e', ''], env: inherited, samples: [] });
        const largest = subjects.find((x) => x.fn === fns[0])!;
        subjects.push({ ...largest, label: `${largest.label}, with ${inheritedVars.join(', ')}`, env: inherited, samples: [] });
      }
      await timed(['-e', ''], clean); // let the OS cache the node binary before the first measured round
      for (let r = 0; r < runs; r++) for (const x of subjects) x.samples.push(await timed(x.args, x.env));

      const bareSamples = (env: NodeJS.ProcessEnv) => subjects.find((x) => x.args[0] === '-e' && x.env === env)!.samples;
      const rows: Row[] = [];
      for (const x of subjects) {
        const failed = x.samples.find((s) => s.error);
        if (failed) {
          rows.push({ section, what: x.label, value: 'failed', ok: false, note: failed.error!.split('\n').slice(0, 3).join(' | ') });
          continue;
        }
        const wall = median(x.samples.map((s) => s.wallMs));
        if (x.args[0] === '-e') {
          rows.push({
            section,
            what: x.label,
            value: fmtMs(wall),
            ok: null,
            note:
              x.env === clean
                ? `median of ${runs} rounds; a round runs every line of this section once, each in a fresh process, with the function's environment only (DATABASE_URL, HM_DB_POOL_MAX)`
                : "this shell's environment: node itself starts slower, which flatters every ratio measured against it",
          });
          continue;
        }
        // each round's ratio to the bare node of the same round, then their median: a burst of load from
        // other work on the machine then shifts a pair, not one side of the comparison
        const bare = x.bare?.samples ?? bareSamples(x.env);
        const ratio = median(x.samples.map((s, r) => s.wallMs / bare[r].wallMs));
        const split = `import ${fmtMs(median(x.samples.map((s) => s.importMs!)))} + first invoke ${fmtMs(median(x.samples.map((s) => s.invokeMs!)))}`;
        const isFloor = x.args[1] !== noop && !x.fn;
        rows.push({
          section,
          what: x.label,
          value: `${ratio.toFixed(2)}× (${fmtMs(wall)})`,
          target: x.fn && x.env === clean ? `≤ ${TARGET}×` : undefined,
          ok: x.fn && x.env === clean ? ratio <= TARGET : null,
          note: x.fn
            ? `${split} → ${x.samples[0].status} ${x.samples[0].message} (${x.fn.route.method} ${x.fn.route.path})`
            : isFloor
              ? `${split}: what a function pays before its own code (bench/lib/store-floor.ts); the ≤ ${TARGET}× target leaves ${fmtMs(Math.max(0, TARGET * median(bareSamples(clean).map((b) => b.wallMs)) - wall))} above it`
              : `${split}: node + ESM loader + this runner, no bundle`,
        });
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

export const coldInit: Bench = {
  name: 'cold-init',
  async run() {
    // PostgreSQL is what functions talk to in production; PGlite when no server is reachable.
    // BENCH_COLD_STORES=pglite,postgres measures on each named store, one after the other.
    const why = await postgresUnavailable();
    const named = process.env.BENCH_COLD_STORES?.split(',').filter((s): s is StoreKind => s === 'pglite' || s === 'postgres');
    const rows: Row[] = [];
    const kinds: StoreKind[] = named?.length ? named : [why ? 'pglite' : 'postgres'];
    for (const kind of kinds) {
      if (kind === 'postgres' && why) {
        rows.push({ section: 'cold init (postgres)', what: 'store', value: 'skipped', ok: false, note: why });
        continue;
      }
      rows.push(...(await measureColdInit(kind)));
    }
    if (why && !named?.length) rows.unshift({ section: 'cold init (pglite)', what: 'store', value: 'PGlite', ok: null, note: why });
    return rows;
  },
};

await runAlone(import.meta, coldInit);
