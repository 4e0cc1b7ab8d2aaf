/**
 * npm run bench (after npm run build): every measurement under bench/, one after another, then one table with
 * each number beside its target. Each measurement starts and cleans up its own stores and processes.
 *   BENCH_ONLY=pipeline,e12   run only these (names below)
 * Environment knobs of the measurements: BENCH_PG_URL (PostgreSQL server for scratch databases, default
 * postgres://postgres:postgres@127.0.0.1:5432/postgres), BENCH_COLD_RUNS, BENCH_COLD_BUNDLES,
 * BENCH_PIPELINE_N, BENCH_E12_EVENTS, BENCH_E12_N, BENCH_E14_ROWS, BENCH_E14_N, BENCH_DISPATCH_N, BENCH_E8_N,
 * BENCH_NOTIFY_N, BENCH_NOTIFY_GAP_MS, BENCH_BACKUP_PASSES, BENCH_BACKUP_SEND_MIB, BENCH_HOSTS, BENCH_HOSTS_SECONDS, BENCH_STATS_WAIT_SECONDS, BENCH_IDLE_AGENT_SECONDS, BENCH_IDLE_SETTLE_SECONDS,
 * BENCH_SEED_TIMEOUT_MS, BENCH_ROW_BYTES_ROWS, BENCH_MEMORY_ROUNDS, BENCH_MEMORY_INVOCATIONS, BENCH_MEMORY_GAP_MS.
 * Benchmarks never run in `npm test`.
 *
 * Short mode (`npm run bench -- --short` or BENCH_SHORT=1; what CI runs): every section on small data (the knobs
 * below, unless set), no target judged; the run fails when a section crashes or reports a failed request, so a
 * broken measurement fails CI without the machine's speed deciding anything.
 */
import { cpus, loadavg } from 'node:os';
import { bundles } from './bundles.ts';
import { coldInit } from './cold-init.ts';
import { pipeline } from './pipeline.ts';
import { e12 } from './e12.ts';
import { dispatch } from './dispatch.ts';
import { e14 } from './e14.ts';
import { e8 } from './e8.ts';
import { e18 } from './e18.ts';
// notification delivery
import { notifyDelivery } from './notify-delivery.ts';
import { backups } from './backups.ts';
import { hosts } from './hosts.ts';
import { storeRows } from './store-rows.ts';
import { lambdaMemory } from './lambda-memory.ts';
import { consoleBench } from './console.ts';
import { fmtMs } from './lib/stats.ts';
import { table, type Bench, type Row } from './lib/report.ts';

const short = process.argv.includes('--short') || process.env.BENCH_SHORT === '1';
/** Small data for the short mode; a knob set in the environment wins. */
const SHORT_KNOBS: Record<string, string> = {
  BENCH_COLD_RUNS: '2',
  BENCH_COLD_BUNDLES: '2',
  BENCH_PIPELINE_N: '100',
  BENCH_E12_EVENTS: '2000',
  BENCH_E12_N: '30',
  BENCH_E14_ROWS: '20000',
  BENCH_E14_N: '30',
  BENCH_DISPATCH_N: '3',
  BENCH_DISPATCH_BURST: '5',
  BENCH_E18_ROUTES: '500',
  BENCH_E18_N: '30',
  BENCH_E8_N: '20',
  BENCH_NOTIFY_N: '10',
  BENCH_BACKUP_PASSES: '2',
  BENCH_BACKUP_SEND_MIB: '12',
  BENCH_HOSTS: '10',
  BENCH_HOSTS_SECONDS: '12',
  BENCH_STATS_WAIT_SECONDS: '2',
  // the idle agent on a compressed clock (a sample a second, a batch every 4 s, inventory every 3 s), so each
  // of its windows still spans several of its intervals: settle one inventory interval, switch to watched one
  // batch interval and a tick
  BENCH_AGENT_ENV: 'HM_TELEMETRY_INTERVAL=1 HM_TELEMETRY_BATCH_INTERVAL=4 HM_INVENTORY_INTERVAL=3 HM_HEARTBEAT_INTERVAL=4',
  BENCH_IDLE_AGENT_SECONDS: '8',
  BENCH_IDLE_SETTLE_SECONDS: '3',
  BENCH_IDLE_SWITCH_SECONDS: '6',
  BENCH_CONSOLE_N: '10',
  BENCH_MEMORY_ROUNDS: '1',
  BENCH_MEMORY_INVOCATIONS: '3',
  BENCH_ROW_BYTES_ROWS: '2000',
};
if (short) for (const [k, v] of Object.entries(SHORT_KNOBS)) process.env[k] ??= v;
/** In short mode a row is broken (fails the run) when its section crashed, was skipped, or saw a request fail. */
const broken = (r: Row) => r.value === 'crashed' || r.value === 'skipped' || /request failed|failed:/i.test(r.note ?? '');

const all: Bench[] = [bundles, coldInit, pipeline, e12, dispatch, e14, e8, e18, notifyDelivery, backups, storeRows, lambdaMemory, hosts, consoleBench];
const only = process.env.BENCH_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const chosen = only ? all.filter((b) => only.includes(b.name)) : all;

const started = performance.now();
const rows: Row[] = [];
let crashed = 0;
console.log(
  `bench${short ? ' (short: small data, no target judged)' : ''}: node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; running ${chosen.map((b) => b.name).join(', ')}`,
);
for (const b of chosen) {
  const t = performance.now();
  process.stdout.write(`  ${b.name} … `);
  try {
    const got = await b.run();
    rows.push(...got);
    console.log(`done in ${fmtMs(performance.now() - t)}`);
  } catch (err) {
    crashed++;
    console.log(`FAILED in ${fmtMs(performance.now() - t)}`);
    console.error((err as Error).stack ?? err);
    rows.push({ section: b.name, what: 'measurement', value: 'crashed', ok: false, note: String((err as Error).message ?? err).split('\n')[0] });
  }
}
console.log('');
if (short) {
  const bad = rows.filter(broken);
  console.log(table(rows.map((r) => ({ ...r, ok: broken(r) ? false : null }))));
  console.log('');
  console.log(`short run: ${bad.length ? `${bad.length} broken row(s)` : 'every section ran'}; total bench time ${fmtMs(performance.now() - started)}`);
  process.exit(crashed || bad.length ? 1 : 0);
}
console.log(table(rows));
const targets = rows.filter((r) => r.ok !== null && r.ok !== undefined);
console.log('');
console.log(`${targets.filter((r) => r.ok).length} of ${targets.length} targets met; total bench time ${fmtMs(performance.now() - started)}`);
const load = loadavg()[0];
if (load > cpus().length) {
  console.log(
    `note: the 1-minute load average is ${load.toFixed(2)} on ${cpus().length} CPUs (other work on the machine): latencies and cold starts are inflated; re-run when the machine is quiet`,
  );
}
process.exit(crashed ? 1 : 0);
