/**
 * npm run bench (after npm run build): every measurement under bench/, one after another, then one table with
 * each number beside its target. Each measurement starts and cleans up its own stores and processes.
 *   BENCH_ONLY=pipeline,e12   run only these (names below)
 * Environment knobs of the measurements: BENCH_PG_URL (PostgreSQL server for scratch databases, default
 * postgres://postgres:postgres@127.0.0.1:5432/postgres), BENCH_COLD_RUNS, BENCH_COLD_BUNDLES,
 * BENCH_PIPELINE_N, BENCH_E12_EVENTS, BENCH_E12_N, BENCH_E14_ROWS, BENCH_E14_N, BENCH_DISPATCH_N, BENCH_E8_N,
 * BENCH_NOTIFY_N, BENCH_NOTIFY_GAP_MS, BENCH_BACKUP_PASSES.
 * Benchmarks never run in `npm test`.
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
import { fmtMs } from './lib/stats.ts';
import { table, type Bench, type Row } from './lib/report.ts';

const all: Bench[] = [bundles, coldInit, pipeline, e12, dispatch, e14, e8, e18, notifyDelivery, backups];
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
const chosen = only ? all.filter((b) => only.includes(b.name)) : all;

const started = performance.now();
const rows: Row[] = [];
let crashed = 0;
console.log(`bench: node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; running ${chosen.map((b) => b.name).join(', ')}`);
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
console.log(table(rows));
const targets = rows.filter((r) => r.ok !== null && r.ok !== undefined);
console.log('');
console.log(`${targets.filter((r) => r.ok).length} of ${targets.length} targets met; total bench time ${fmtMs(performance.now() - started)}`);
const load = loadavg()[0];
if (load > cpus().length) {
  console.log(`note: the 1-minute load average is ${load.toFixed(2)} on ${cpus().length} CPUs (other work on the machine): latencies and cold starts are inflated; re-run when the machine is quiet`);
}
process.exit(crashed ? 1 : 0);
