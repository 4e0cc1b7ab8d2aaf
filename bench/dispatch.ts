/**
 * The job system end to end, on the local stack `npm start` runs: store, fauxqs, serverless-offline and
 * an agent process on the host simulator (scripts/stack/stack.ts, demo seed, its simulated node).
 *   - enqueue → agent start: a `host.probe` task (no sysctls, no hold: the cheapest real task) is created in
 *     the store and its message sent with the functions' own `sendTask`; the latency runs from just before
 *     SendMessage to the task's `started_at`, which the agent's POST /api/agent/tasks/{id}/start sets (same
 *     machine, same clock). One task at a time, each after the previous finished, so the agent is idle and
 *     long-polling as it normally is. BENCH_DISPATCH_N tasks (default 30).
 *   - tasks per second: BENCH_DISPATCH_BURST tasks (default 40) on distinct resources sent at once, from the
 *     first send to the last `finished_at` (the agent's own concurrency bounds it).
 * Target: dispatch p50 ≤ 100 ms. The store is PostgreSQL when reachable (as CI's second run), else PGlite.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { freePort } from '#scripts/stack/ports';
import { createDb } from '#store/db';
import { fmtMs, percentile } from './lib/stats.ts';
import { postgresServerUrl, postgresUnavailable } from './lib/stores.ts';
import { runAlone, type Bench } from './lib/report.ts';

const TARGET_P50_MS = 100;
const LOG_DIR = resolve('.local/bench-logs/dispatch');

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (logs: ${LOG_DIR})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const dispatch: Bench = {
  name: 'dispatch',
  async run() {
    const section = 'dispatch (fauxqs, agent)';
    // The job system's pieces, loaded here so that a tree without them still runs the other measurements.
    let stackMod: typeof import('#scripts/stack/stack');
    let agentMod: typeof import('#scripts/stack/local-agent');
    let tasksMod: typeof import('#shared/jobs/tasks');
    let sendMod: typeof import('#shared/jobs/dispatch');
    try {
      [stackMod, agentMod, tasksMod, sendMod] = await Promise.all([
        import('#scripts/stack/stack'),
        import('#scripts/stack/local-agent'),
        import('#shared/jobs/tasks'),
        import('#shared/jobs/dispatch'),
      ]);
    } catch (err) {
      return [
        {
          section,
          what: 'enqueue → agent start',
          value: 'not available',
          ok: null,
          note: `the job system is not importable: ${(err as Error).message.split('\n')[0]}`,
        },
      ];
    }
    const n = Number(process.env.BENCH_DISPATCH_N ?? 30);
    const burst = Number(process.env.BENCH_DISPATCH_BURST ?? 40);
    const usePg = !(await postgresUnavailable());
    const dir = mkdtempSync(join(tmpdir(), 'hm-bench-dispatch-'));
    rmSync(LOG_DIR, { recursive: true, force: true });
    mkdirSync(LOG_DIR, { recursive: true });
    const envBefore = { ...process.env };
    // the SDK's notice that its 2027 releases need Node 22 would land in the middle of the table
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    let stack: Awaited<ReturnType<typeof stackMod.startStack>> | undefined;
    let db: Kysely<Database> | undefined;
    try {
      stack = await stackMod.startStack({
        dataDir: join(dir, 'pglite'),
        scratchServerUrl: usePg ? postgresServerUrl() : undefined,
        httpPort: await freePort(),
        lambdaPort: await freePort(),
        demoSeed: true,
        agentNodeId: agentMod.DEMO_NODE_ID,
        logDir: LOG_DIR,
        quiet: true,
        queuePrefix: `hm-bench-${process.pid}`,
        // the sweeper must not re-send the bench's tasks behind its back
        sweepEveryMs: 3_600_000,
      });
      if (!stack.agent)
        return [
          {
            section,
            what: 'enqueue → agent start',
            value: 'not available',
            ok: null,
            note: `the stack started no agent for the demo node (does the demo seed describe its simulated host yet?); logs: ${LOG_DIR}`,
          },
        ];
      db = createDb(stack.databaseUrl, 2);
      const store = db;
      const nodeId = agentMod.DEMO_NODE_ID;
      const newTask = (resource: string) =>
        tasksMod.createTask(store, { kind: 'host.probe', nodeId, resource, payload: { sysctls: [] }, requestedBy: 'bench' });
      const settled = (id: number) =>
        until(
          `task ${id} to finish`,
          async () => {
            const t = await store.selectFrom('tasks').select(['status', 'error', 'started_at', 'finished_at']).where('id', '=', id).executeTakeFirstOrThrow();
            if (t.status === 'failed' || t.status === 'interrupted') throw new Error(`task ${id} ended ${t.status}: ${t.error}`);
            return t.status === 'success' ? t : undefined;
          },
          60_000,
        );

      // Warm-up: the agent registers (creating its queue), serverless-offline loads the agent functions.
      const started = Date.now();
      const first = await newTask('bench:warmup');
      await sendMod.sendTask(first, store);
      await settled(first.id);
      const warmupMs = Date.now() - started;

      const latencies: number[] = [];
      const runs: number[] = [];
      for (let i = 0; i < n; i++) {
        const task = await newTask('bench:latency');
        const t0 = Date.now();
        await sendMod.sendTask(task, store);
        const done = await settled(task.id);
        latencies.push(done.started_at!.getTime() - t0);
        runs.push(done.finished_at!.getTime() - done.started_at!.getTime());
      }

      const tasks = [];
      for (let i = 0; i < burst; i++) tasks.push(await newTask(`bench:burst-${i}`));
      const b0 = Date.now();
      await Promise.all(tasks.map((t) => sendMod.sendTask(t, store)));
      const ends = await Promise.all(tasks.map((t) => settled(t.id)));
      const spanMs = Math.max(...ends.map((e) => e.finished_at!.getTime())) - b0;

      const p50 = percentile(latencies, 50);
      return [
        {
          section,
          what: 'enqueue → agent start',
          value: `p50 ${fmtMs(p50)} / p95 ${fmtMs(percentile(latencies, 95))}`,
          target: `p50 ≤ ${TARGET_P50_MS} ms`,
          ok: p50 <= TARGET_P50_MS,
          note: `${n} host.probe tasks one after another on ${stack.storeKind}; from SendMessage to started_at; first task (agent registration + cold functions) took ${fmtMs(warmupMs)}`,
        },
        { section, what: '  start → finish (agent run + reports)', value: `p50 ${fmtMs(percentile(runs, 50))} / p95 ${fmtMs(percentile(runs, 95))}`, ok: null },
        {
          section,
          what: 'tasks per second through the simulator',
          value: `${(burst / (spanMs / 1000)).toFixed(1)} /s`,
          ok: null,
          note: `${burst} host.probe tasks on distinct resources sent at once, all finished ${fmtMs(spanMs)} after the first send`,
        },
      ];
    } finally {
      await db?.destroy().catch(() => undefined);
      await stack?.stop().catch((e) => console.error('bench dispatch stop:', (e as Error).message));
      for (const k of Object.keys(process.env)) if (!(k in envBefore)) delete process.env[k];
      Object.assign(process.env, envBefore);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

await runAlone(import.meta, dispatch);
