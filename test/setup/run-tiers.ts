/**
 * `npm test`: the suite's passes (test/setup/tiers.cjs decides each file's tier; docs/testing.md):
 *   - fast — no stack, no store — in parallel; its profile-sensitive files again on FreeBSD 15.0
 *   - stack — one stack per jest worker — on PGlite, and again on PostgreSQL with FreeBSD 15.0 when
 *     TEST_DATABASE_URL names a server (CI)
 *   - e2e — agents over SSH, Chromium, whole stacks — once
 *   - real-zfs — the real-OpenZFS guest — once
 *   - with HM_TIERS_BENCH_SHORT=1 (CI), the bench's short mode, as the last pass
 * The passes run in lanes (HM_TEST_LANES, default 2): a pass takes the next free lane, the real-OpenZFS one
 * first because its guest is the longest single piece. Each pass's files wait on agents, SSH, a TCG guest and
 * timers more than they use a core (a stack pass used about one core of two), so two lanes fill the machine
 * where one left it half idle. Passes that share a fixed resource never overlap: the stack passes both start
 * pebble on its fixed ports. With two lanes a pass prints its PASS/FAIL lines as they come and its whole output
 * when it failed; with one, jest prints straight through as before.
 * Then the distinct test cases over all passes, the ten slowest files and the plain closing line CI reads,
 * "N passed, N failed". HM_TEST_WORKERS sets each pass's jest workers (default: the machine's cores).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import tiers from './tiers.cjs';
import { REAL_ZFS_ARGS } from '../real-zfs/jest-args.ts';

interface Pass {
  label: string;
  /** a short name for its logs (.local/test-logs/<slug>/) */
  slug: string;
  project: 'fast' | 'stack' | 'e2e' | 'real-zfs';
  env: NodeJS.ProcessEnv;
  files?: string[];
  /** jest arguments of this pass alone */
  args?: string[];
  /** passes with the same resource never run at once */
  resource?: string;
  /** a command run instead of jest (the bench), judged by its exit status alone */
  command?: string[];
}

const SECOND_PROFILE = 'freebsd-15.0';
const workers = process.env.HM_TEST_WORKERS || String(Math.max(2, availableParallelism()));
const lanes = Math.max(1, Number(process.env.HM_TEST_LANES || 2));
const postgresUrl = process.env.TEST_DATABASE_URL || '';
const onPglite: NodeJS.ProcessEnv = { ...process.env, TEST_DATABASE_URL: '' };
const plan = tiers.plan(process.cwd());
const sensitive = plan.fast.filter((f: string) => plan.profileSensitive.includes(f));

// in the order lanes take them
const passes: Pass[] = [];
// the real-OpenZFS guest (no store): its own closing line, as `npm run test:real-zfs` prints it
passes.push({ label: 'real OpenZFS', slug: 'real-zfs', project: 'real-zfs', env: onPglite, args: REAL_ZFS_ARGS });
passes.push({ label: 'fast', slug: 'fast', project: 'fast', env: onPglite });
if (postgresUrl && sensitive.length)
  passes.push({ label: `fast on ${SECOND_PROFILE}`, slug: 'fast-15', project: 'fast', env: { ...onPglite, HM_SIM_PROFILE: SECOND_PROFILE }, files: sensitive });
passes.push({ label: 'stack on PGlite', slug: 'stack-pglite', project: 'stack', env: onPglite, resource: 'pebble' });
passes.push({ label: 'e2e', slug: 'e2e', project: 'e2e', env: onPglite });
if (postgresUrl)
  passes.push({
    label: `stack on PostgreSQL, ${SECOND_PROFILE}`,
    slug: 'stack-postgres',
    project: 'stack',
    env: { ...process.env, HM_SIM_PROFILE: SECOND_PROFILE },
    resource: 'pebble',
  });
// CI's bench in short mode (every section runs, no target judged) as the last pass: it takes the lane the
// real-OpenZFS pass frees while the PostgreSQL pass still runs, instead of waiting for both after the tiers.
// Its PostgreSQL (BENCH_PG_URL) is a server of its own, so the two never share a connection budget.
if (process.env.HM_TIERS_BENCH_SHORT === '1')
  passes.push({
    label: 'bench --short (every section runs)',
    slug: 'bench',
    project: 'fast',
    env: process.env,
    command: ['npx', 'tsx', 'bench/run.ts', '--short'],
  });

/** Samples the PostgreSQL server's client connections while a pass runs on it: the budget's measured peak. */
async function sampleConnections(url: string) {
  const c = new pg.Client({ connectionString: url });
  // a dropped sampling connection ends the sampling, never the run (an unheard 'error' would crash it)
  c.on('error', () => undefined);
  await c.connect();
  const max = Number((await c.query('show max_connections')).rows[0].max_connections);
  let peak = 0;
  const timer = setInterval(() => {
    c.query("select count(*)::int as n from pg_stat_activity where backend_type = 'client backend'")
      .then((r) => (peak = Math.max(peak, r.rows[0].n)))
      .catch(() => undefined);
  }, 250);
  return {
    stop: async () => {
      clearInterval(timer);
      await c.end().catch(() => undefined);
      return { peak, max };
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'hm-tiers-'));
const logs = join('.local', 'test-logs');
mkdirSync(logs, { recursive: true });
const extra = process.argv.slice(2);
const timings: string[] = [];
let failedPasses = 0;
let failedCommands = 0;
const began = Date.now();
const clock = () => `${Math.round((Date.now() - began) / 1000)} s`;

/** Runs one pass's jest; in lanes, its output goes to .local/test-logs/<slug>.log and only PASS/FAIL lines show. */
async function runPass(p: Pass): Promise<void> {
  const results = join(dir, `${passes.indexOf(p)}.jsonl`);
  const what = `${p.label}${p.files ? ` (${p.files.length} profile-sensitive files)` : ''}`;
  console.log(`\n=== tier ${what}${lanes > 1 ? ` — started at ${clock()}` : ''}`);
  const sampler = p.env.TEST_DATABASE_URL && !p.command ? await sampleConnections(p.env.TEST_DATABASE_URL).catch(() => null) : null;
  const started = Date.now();
  // spawned, not spawnSync: the sampler's timer must keep running while jest does
  const args = p.args ?? ['-w', workers];
  const logFile = join(logs, `${p.slug}.log`);
  const argv = p.command ?? ['npx', 'jest', '--selectProjects', p.project, ...args, ...extra, ...(p.files ?? [])];
  const child = spawn(argv[0], argv.slice(1), {
    stdio: lanes > 1 ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...p.env, HM_TEST_RESULTS: results, HM_TEST_PASS: p.slug },
  });
  if (lanes > 1) {
    const log = createWriteStream(logFile);
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.pipe(log, { end: false });
      createInterface({ input: stream }).on('line', (line) => {
        if (/^(PASS|FAIL) /.test(line)) console.log(`[${p.slug}] ${line}`);
      });
    }
    child.once('exit', () => log.end());
  }
  const r = await new Promise<{ status: number | null }>((resolve) => child.once('exit', (status) => resolve({ status })));
  const took = Math.round((Date.now() - started) / 1000);
  const conn = sampler ? await sampler.stop() : null;
  timings.push(`${p.label}: ${took} s${conn ? `; PostgreSQL peak ${conn.peak} client connections of max_connections ${conn.max}` : ''}`);
  if (r.status !== 0) failedPasses++;
  if (r.status !== 0 && p.command) failedCommands++;
  if (lanes > 1) {
    await new Promise((res) => setTimeout(res, 50)); // the log's last lines
    const text = readFileSync(logFile, 'utf8');
    console.log(`\n=== tier ${what}: ${r.status === 0 ? 'passed' : `FAILED (exit ${r.status}); its whole output:`} — ${took} s, ended at ${clock()}`);
    if (r.status !== 0 || p.command) console.log(text);
    else for (const line of text.split('\n').filter((l) => /^(Tests:|Test Suites:|real OpenZFS )/.test(l))) console.log(`  ${line}`);
  }
}

// lanes: each takes the first waiting pass whose resource no running pass holds
const waiting = [...passes];
const held = new Set<string>();
const sleepers: Array<() => void> = [];
async function lane(): Promise<void> {
  for (;;) {
    const i = waiting.findIndex((p) => !p.resource || !held.has(p.resource));
    if (i < 0) {
      if (!waiting.length) return;
      await new Promise<void>((r) => sleepers.push(r));
      continue;
    }
    const [p] = waiting.splice(i, 1);
    if (p.resource) held.add(p.resource);
    try {
      await runPass(p);
    } catch (err) {
      // the runner's own failure around a pass still ends in the closing line, counted as that pass failing
      console.log(`\n=== tier ${p.label}: the runner failed around it: ${(err as Error).stack ?? err}`);
      failedPasses++;
    } finally {
      if (p.resource) held.delete(p.resource);
      for (const w of sleepers.splice(0)) w();
    }
  }
}
await Promise.all(Array.from({ length: Math.min(lanes, passes.length) }, () => lane()));

let passed = 0;
let failed = 0;
const distinct = new Set<string>();
const files = new Map<string, number>();
for (const i of passes.keys()) {
  if (passes[i].command) continue; // judged by its exit status (failedPasses), no test cases
  let text = '';
  try {
    text = readFileSync(join(dir, `${i}.jsonl`), 'utf8');
  } catch {
    failed++; // a pass that reported nothing (jest could not start) counts as one failure
    continue;
  }
  for (const line of text.split('\n').filter((l) => l.trim())) {
    let run: { passed: number; failed: number; cases: string[]; files: Array<[string, number]> };
    try {
      run = JSON.parse(line);
    } catch {
      // a torn line (its jest killed while writing): counted as one failure, never a crash without the closing line
      console.log(`${passes[i].label}: unreadable results line: ${line.slice(0, 200)}`);
      failed++;
      continue;
    }
    passed += run.passed;
    failed += run.failed;
    for (const c of run.cases) distinct.add(c);
    for (const [f, ms] of run.files) files.set(`${f} (${passes[i].label})`, ms);
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(`\n=== tiers (${lanes} lane${lanes > 1 ? 's' : ''}, ${clock()} in all)`);
for (const t of timings) console.log(`  ${t}`);
console.log('slowest files:');
for (const [f, ms] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${Math.round(ms / 1000)} s  ${f}`);
console.log(`distinct test cases: ${distinct.size}`);
failed += failedCommands;
if (failed === 0 && failedPasses > 0) failed = failedPasses;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed || failedPasses ? 1 : 0);
