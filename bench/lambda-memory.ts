/**
 * The agent's cadence functions (telemetry, heartbeat) at the Lambda memories they could have: Lambda gives a
 * function CPU in proportion to its memory (one vCPU at 1 769 MB: AWS's Lambda memory documentation), so each
 * memory is emulated here by a CPU cgroup holding the function's process to memory ÷ 1 769 of one CPU
 * (lib/cpu-share.ts). A fresh process per round and memory (rounds interleave the memories, so load from other
 * work hits both alike) imports the bundle and answers BENCH_MEMORY_INVOCATIONS (20) requests in turn, the first
 * cold, BENCH_MEMORY_GAP_MS (150) apart — a container that is not busy all the time, whose CPU quota (spread
 * over the kernel's 100 ms period) refills between requests; 0 is a container busy back to back: telemetry a batch of six 10-s samples of two pools (what an agent posts once a minute while nobody
 * watches), heartbeat a bare heartbeat. Per memory: import and first invocation, the warm invocations' mean wall
 * and CPU time, and GB-s per warm invocation (mean × memory), which is what Lambda bills. On PostgreSQL (PGlite
 * when no server answers). Needs a writable cgroup hierarchy; says so otherwise.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createToken } from '#shared/auth/tokens';
import { apiEvent } from './lib/events.ts';
import { builtFunctions } from './lib/routes.ts';
import { cpuShare } from './lib/cpu-share.ts';
import { syntheticPools, syntheticSample } from './lib/synthetic-host.ts';
import { fmtMs, median } from './lib/stats.ts';
import { postgresUnavailable, withStore, type StoreKind } from './lib/stores.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const RUNNER = resolve('bench/lib/memory-runner.mjs');
/** MB of Lambda memory that buys one vCPU */
const MB_PER_VCPU = 1769;
const MEMORIES = [256, 128];
const ROUTES = { telemetry: '/api/agent/telemetry', heartbeat: '/api/agent/heartbeat' } as const;

interface RunOut {
  importMs: number;
  wallMs: number[];
  cpuMs: number[];
  statuses: Record<string, number>;
  rssMb?: number;
  error?: string;
}

function runIn(cmd: [string, string[]]): Promise<RunOut> {
  return new Promise((res, rej) => {
    const child = spawn(cmd[0], cmd[1], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME, ...childEnv } });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.once('error', rej);
    child.once('exit', (code) => {
      const line = err.split('\n').find((l) => l.startsWith('@@bench '));
      if (!line) return res({ importMs: 0, wallMs: [], cpuMs: [], statuses: {}, error: `exit ${code}: ${err.slice(-400)}` });
      res(JSON.parse(line.slice(8)) as RunOut);
    });
  });
}
let childEnv: NodeJS.ProcessEnv = {};

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function measure(kind: StoreKind): Promise<Row[]> {
  const section = `agent functions by memory (${kind})`;
  const rounds = Number(process.env.BENCH_MEMORY_ROUNDS ?? 5);
  const invocations = Number(process.env.BENCH_MEMORY_INVOCATIONS ?? 20);
  const gapMs = Number(process.env.BENCH_MEMORY_GAP_MS ?? 150);
  const built = builtFunctions();
  const shares = new Map(MEMORIES.map((m) => [m, cpuShare(`hm-bench-${process.pid}-${m}mb`, m / MB_PER_VCPU)]));
  const why = [...shares.values()].find((s) => typeof s === 'string');
  // not a failure of the product: the machine cannot emulate Lambda's CPU share (short runs stay green)
  if (why) return [{ section, what: 'CPU share per memory', value: 'not measured', ok: null, note: why as string }];
  return withStore(kind, async (store) => {
    const dir = mkdtempSync(join(tmpdir(), 'hm-bench-memory-'));
    try {
      childEnv = { DATABASE_URL: store.url, HM_DB_POOL_MAX: '2', TZ: 'UTC' };
      // one registered node per process, so every process's samples are new to its node
      let host = 0;
      const nodeFor = async () => {
        const nodeId = randomUUID();
        const n = host++;
        await store.db
          .insertInto('nodes')
          .values({ id: nodeId, name: `memory-bench-${n}`, ip: `10.8.0.${n + 1}`, status: 'member', inventory: '{}' })
          .execute();
        await store.db
          .insertInto('pools')
          .values(
            syntheticPools(n).map((p) => ({
              guid: p.guid,
              node_id: nodeId,
              name: p.name,
              health: 'ONLINE',
              size: p.size,
              allocated: p.allocated,
              free: p.free,
              vdevs: '[]',
            })),
          )
          .execute();
        const { token } = await createToken(store.db, { name: `memory bench ${n}`, role: 'agent', nodeId });
        return { n, token };
      };
      const rows: Row[] = [];
      for (const [name, route] of Object.entries(ROUTES)) {
        const fn = built.find((f) => f.route.path === route);
        if (!fn) {
          rows.push({ section, what: name, value: 'not built', ok: false });
          continue;
        }
        const out = new Map<number, RunOut[]>(MEMORIES.map((m) => [m, []]));
        for (let r = 0; r < rounds; r++) {
          for (const m of MEMORIES) {
            const { n, token } = await nodeFor();
            const t0 = Date.now() - invocations * 60_000;
            const events = Array.from({ length: invocations }, (_, k) =>
              apiEvent({
                method: 'POST',
                route,
                token,
                body:
                  name === 'telemetry'
                    ? JSON.stringify({ samples: Array.from({ length: 6 }, (_, j) => syntheticSample(n, k * 6 + j + 1, 10, t0 + (k * 6 + j) * 10_000)) })
                    : undefined,
              }),
            );
            const file = join(dir, `${name}-${r}-${m}.json`);
            writeFileSync(file, JSON.stringify(events));
            const share = shares.get(m) as Exclude<ReturnType<typeof cpuShare>, string>;
            out.get(m)!.push(await runIn(share.wrap(process.execPath, [RUNNER, fn.bundle, file, String(m), String(gapMs)])));
          }
        }
        const base = MEMORIES[0];
        const gbS = new Map<number, number>();
        for (const m of MEMORIES) {
          const runs = out.get(m)!;
          const failed = runs.find((x) => x.error || Object.keys(x.statuses).some((s) => s !== '200'));
          if (failed) {
            rows.push({
              section,
              what: `${name} at ${m} MB`,
              value: 'failed',
              ok: false,
              note: `a request failed: ${failed.error ?? JSON.stringify(failed.statuses)}`,
            });
            continue;
          }
          const warm = runs.flatMap((x) => x.wallMs.slice(1));
          const warmCpu = runs.flatMap((x) => x.cpuMs.slice(1));
          gbS.set(m, (mean(warm) / 1000) * (m / 1024));
          rows.push({
            section,
            what: `${name} at ${m} MB (${((m / MB_PER_VCPU) * 100).toFixed(1)} % of a CPU)`,
            value: `warm ${fmtMs(mean(warm))} mean, p50 ${fmtMs(median(warm))}`,
            ok: null,
            note: `CPU ${fmtMs(mean(warmCpu))} per warm invocation; import ${fmtMs(median(runs.map((x) => x.importMs)))} + first invoke ${fmtMs(median(runs.map((x) => x.wallMs[0])))} (medians of ${rounds} processes, ${invocations} invocations each, ${gapMs} ms apart); ${((gbS.get(m)! * 1e6) / 1e3).toFixed(2)} GB-ms per warm invocation; largest RSS ${Math.max(...runs.map((x) => x.rssMb ?? 0)).toFixed(0)} MB`,
          });
        }
        for (const m of MEMORIES.slice(1))
          if (gbS.has(m) && gbS.has(base))
            rows.push({
              section,
              what: `${name}: GB-s at ${m} MB ÷ at ${base} MB`,
              value: (gbS.get(m)! / gbS.get(base)!).toFixed(2),
              ok: null,
              note: '1.00 would mean the time doubled with half the CPU (all CPU); 0.50 that it did not grow (all waiting on the store)',
            });
      }
      return rows;
    } finally {
      for (const s of shares.values()) if (typeof s !== 'string') s.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

export const lambdaMemory: Bench = {
  name: 'lambda-memory',
  async run() {
    const why = await postgresUnavailable();
    const rows = await measure(why ? 'pglite' : 'postgres');
    if (why) rows.unshift({ section: 'agent functions by memory (pglite)', what: 'store', value: 'PGlite', ok: null, note: why });
    return rows;
  },
};

await runAlone(import.meta, lambdaMemory);
