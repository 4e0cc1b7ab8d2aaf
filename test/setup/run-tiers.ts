/**
 * `npm test`: the suite's tiers in order (test/setup/tiers.cjs decides each file's tier; docs/testing.md):
 *   1. fast — no stack, no store — in parallel; its profile-sensitive files again on FreeBSD 15.0
 *   2. stack — one stack per jest worker — on PGlite, and again on PostgreSQL with FreeBSD 15.0 when
 *      TEST_DATABASE_URL names a server (CI)
 *   3. e2e — agents over SSH, Chromium, whole stacks — once
 *   4. real-zfs — the real-OpenZFS guest — once
 * Then the distinct test cases over all passes, the ten slowest files and the plain closing line CI reads,
 * "N passed, N failed". HM_TEST_WORKERS sets the workers (default: the machine's cores).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import tiers from './tiers.cjs';
import { REAL_ZFS_ARGS } from '../real-zfs/jest-args.ts';

interface Pass {
  label: string;
  project: 'fast' | 'stack' | 'e2e' | 'real-zfs';
  env: NodeJS.ProcessEnv;
  files?: string[];
  /** jest arguments of this pass alone */
  args?: string[];
}

const SECOND_PROFILE = 'freebsd-15.0';
const workers = process.env.HM_TEST_WORKERS || String(Math.max(2, availableParallelism()));
const postgresUrl = process.env.TEST_DATABASE_URL || '';
const onPglite: NodeJS.ProcessEnv = { ...process.env, TEST_DATABASE_URL: '' };
const plan = tiers.plan(process.cwd());
const sensitive = plan.fast.filter((f: string) => plan.profileSensitive.includes(f));

const passes: Pass[] = [{ label: 'fast', project: 'fast', env: onPglite }];
if (postgresUrl && sensitive.length)
  passes.push({ label: `fast on ${SECOND_PROFILE}`, project: 'fast', env: { ...onPglite, HM_SIM_PROFILE: SECOND_PROFILE }, files: sensitive });
passes.push({ label: 'stack on PGlite', project: 'stack', env: onPglite });
if (postgresUrl) passes.push({ label: `stack on PostgreSQL, ${SECOND_PROFILE}`, project: 'stack', env: { ...process.env, HM_SIM_PROFILE: SECOND_PROFILE } });
passes.push({ label: 'e2e', project: 'e2e', env: onPglite });
// the real-OpenZFS guest (no store): its own closing line, as `npm run test:real-zfs` prints it
passes.push({ label: 'real OpenZFS', project: 'real-zfs', env: onPglite, args: REAL_ZFS_ARGS });

/** Samples the PostgreSQL server's client connections while a pass runs on it: the budget's measured peak. */
async function sampleConnections(url: string) {
  const c = new pg.Client({ connectionString: url });
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
const extra = process.argv.slice(2);
const timings: string[] = [];
let failedPasses = 0;
for (const p of passes) {
  const results = join(dir, `${passes.indexOf(p)}.jsonl`);
  console.log(`\n=== tier ${p.label}${p.files ? ` (${p.files.length} profile-sensitive files)` : ''}`);
  const sampler = p.env.TEST_DATABASE_URL ? await sampleConnections(p.env.TEST_DATABASE_URL) : null;
  const started = Date.now();
  // spawned, not spawnSync: the sampler's timer must keep running while jest does
  const args = p.args ?? ['-w', workers];
  const child = spawn('npx', ['jest', '--selectProjects', p.project, ...args, ...extra, ...(p.files ?? [])], {
    stdio: 'inherit',
    env: { ...p.env, HM_TEST_RESULTS: results },
  });
  const r = await new Promise<{ status: number | null }>((resolve) => child.once('exit', (status) => resolve({ status })));
  const took = Math.round((Date.now() - started) / 1000);
  const conn = sampler ? await sampler.stop() : null;
  timings.push(`${p.label}: ${took} s${conn ? `; PostgreSQL peak ${conn.peak} client connections of max_connections ${conn.max}` : ''}`);
  if (r.status !== 0) failedPasses++;
}

let passed = 0;
let failed = 0;
const distinct = new Set<string>();
const files = new Map<string, number>();
for (const i of passes.keys()) {
  let text = '';
  try {
    text = readFileSync(join(dir, `${i}.jsonl`), 'utf8');
  } catch {
    failed++; // a pass that reported nothing (jest could not start) counts as one failure
    continue;
  }
  for (const line of text.trim().split('\n')) {
    const run = JSON.parse(line) as { passed: number; failed: number; cases: string[]; files: Array<[string, number]> };
    passed += run.passed;
    failed += run.failed;
    for (const c of run.cases) distinct.add(c);
    for (const [f, ms] of run.files) files.set(`${f} (${passes[i].label})`, ms);
  }
}
rmSync(dir, { recursive: true, force: true });
console.log('\n=== tiers');
for (const t of timings) console.log(`  ${t}`);
console.log('slowest files:');
for (const [f, ms] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${Math.round(ms / 1000)} s  ${f}`);
console.log(`distinct test cases: ${distinct.size}`);
if (failed === 0 && failedPasses > 0) failed = failedPasses;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed || failedPasses ? 1 : 0);
