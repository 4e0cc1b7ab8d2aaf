/**
 * Steady-state cost per host (PostgreSQL): the local stack (serverless-offline, fauxqs, a scratch PostgreSQL
 * database) with BENCH_HOSTS simulated hosts (default 200) in one child process (bench/lib/host-swarm.ts: the
 * agent's own client and queue code, synthetic inventory and samples, the agent's cadence: heartbeat and
 * telemetry every 10 s, a 20 s long poll) for BENCH_HOSTS_SECONDS (default 120) after all registered. Reports
 * requests/s to the control plane, rows inserted/updated per host per day per table (pg_stat_user_tables),
 * store growth per host per day (pg_database_size), E25 and E12 p50/p99 while under that load, and the swarm
 * process's CPU and memory per host. Then one real agent process (the simulator build, dist/simulator/agent.js:
 * the agent's code with the simulator as its host) idle against the same stack for BENCH_IDLE_AGENT_SECONDS
 * (default 60): its RSS and CPU share, and its requests/s (heartbeats, samples, long polls counted from the
 * store and its log).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { createDb } from '#store/db';
import { createToken } from '#shared/auth/tokens';
import { freePort } from '#scripts/stack/ports';
import { fmtMs, percentile } from './lib/stats.ts';
import { postgresServerUrl, postgresUnavailable } from './lib/stores.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const LOG_DIR = resolve('.local/bench-logs/hosts');
const DAY_S = 86_400;

interface TableStat {
  relname: string;
  ins: number;
  upd: number;
  del: number;
}

async function tableStats(db: Kysely<Database>): Promise<Map<string, TableStat>> {
  const r = await sql<TableStat>`SELECT relname, n_tup_ins::bigint AS ins, n_tup_upd::bigint AS upd, n_tup_del::bigint AS del FROM pg_stat_user_tables`.execute(db);
  return new Map(r.rows.map((x) => [x.relname, { relname: x.relname, ins: Number(x.ins), upd: Number(x.upd), del: Number(x.del) }]));
}

const dbSize = async (db: Kysely<Database>) => Number((await sql<{ n: number }>`SELECT pg_database_size(current_database())::bigint AS n`.execute(db)).rows[0].n);

/** /proc/<pid>: CPU ticks (user+system) and resident set. */
function procSample(pid: number): { ticks: number; rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { ticks: Number(f[11]) + Number(f[12]), rssBytes: Number(rss?.[1] ?? 0) * 1024 };
}

async function timedGets(url: string, token: string, stopAt: number, gapMs: number): Promise<{ ms: number[]; failed: string }> {
  const ms: number[] = [];
  let failed = '';
  while (Date.now() < stopAt) {
    const t = performance.now();
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) });
      await res.text();
      if (res.status !== 200) failed ||= `${res.status} from ${url}`;
      else ms.push(performance.now() - t);
    } catch (err) {
      failed ||= `${(err as Error).message} (${String((err as { cause?: Error }).cause?.message ?? '')}) from ${url}`;
    }
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return { ms, failed };
}

/** Requests the stack's log shows for a route between two byte offsets of the log. */
function requestsLogged(file: string, from: number, route: RegExp): { count: number; end: number } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { count: 0, end: from };
  }
  return { count: text.slice(from).split('\n').filter((l) => route.test(l)).length, end: text.length };
}

/**
 * The demo node's real agent process (simulator build), once it is consuming and idle: RSS and CPU share
 * from /proc over the window, and its API requests from the functions' log lines (one per request).
 */
async function measureIdleAgent(stack: { agent: { nodeId: string; process: { pid: number } } | null }, db: Kysely<Database>, seconds: number): Promise<Row[]> {
  const section = 'idle agent (simulator build)';
  if (!stack.agent) return [{ section, what: 'RSS / CPU', value: 'not available', ok: null, note: 'the stack started no agent' }];
  const nodeId = stack.agent.nodeId;
  const pid = stack.agent.process.pid;
  // registered and through its first telemetry sample: idle from here on
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const seen = await db.selectFrom('arc_telemetry').select('id').where('node_id', '=', nodeId).executeTakeFirst();
    if (seen) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await new Promise((r) => setTimeout(r, 5000));
  const offlineLog = join(LOG_DIR, 'offline.log');
  const startLog = requestsLogged(offlineLog, 0, /^$/).end;
  const a0 = procSample(pid);
  const t0 = performance.now();
  let rssMax = a0.rssBytes;
  const timer = setInterval(() => {
    try {
      rssMax = Math.max(rssMax, procSample(pid).rssBytes);
    } catch {
      /* exited */
    }
  }, 1000);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  const a1 = procSample(pid);
  const wallS = (performance.now() - t0) / 1000;
  const cpuPct = ((a1.ticks - a0.ticks) / 100 / wallS) * 100;
  const hb = requestsLogged(offlineLog, startLog, /agent\/heartbeat/).count;
  const tel = requestsLogged(offlineLog, startLog, /agent\/telemetry/).count;
  return [
    { section, what: 'RSS (max over the window)', value: `${(rssMax / 2 ** 20).toFixed(0)} MiB`, target: '≤ 64 MiB', ok: rssMax <= 64 * 2 ** 20, note: `pid ${pid}, ${wallS.toFixed(0)} s idle; /proc/<pid>/status VmRSS each second` },
    { section, what: 'CPU', value: `${cpuPct.toFixed(2)} % of a core`, target: '≤ 0.2 %', ok: cpuPct <= 0.2, note: 'utime+stime from /proc/<pid>/stat over the window (10 ms ticks)' },
    {
      section, what: 'API requests/s', value: `${((hb + tel) / wallS).toFixed(3)} /s`, ok: null,
      note: `${hb} heartbeats, ${tel} telemetry posts in ${wallS.toFixed(0)} s (the functions' log lines); plus the 20 s long poll: ${(1 / 20).toFixed(2)} ReceiveMessage/s while the queue is empty`,
    },
  ];
}

export const hosts: Bench = {
  name: 'hosts',
  async run() {
    const section = 'steady state per host (postgres)';
    const why = await postgresUnavailable();
    if (why) return [{ section, what: 'per-host cost', value: 'skipped', ok: false, note: why }];
    const n = Number(process.env.BENCH_HOSTS ?? 200);
    const seconds = Number(process.env.BENCH_HOSTS_SECONDS ?? 120);
    const idleSeconds = Number(process.env.BENCH_IDLE_AGENT_SECONDS ?? 60);
    const stackMod = await import('#scripts/stack/stack');
    const agentMod = await import('#scripts/stack/local-agent');
    const dir = mkdtempSync(join(tmpdir(), 'hm-bench-hosts-'));
    rmSync(LOG_DIR, { recursive: true, force: true });
    mkdirSync(LOG_DIR, { recursive: true });
    const envBefore = { ...process.env };
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    let stack: Awaited<ReturnType<typeof stackMod.startStack>> | undefined;
    let db: Kysely<Database> | undefined;
    try {
      stack = await stackMod.startStack({
        dataDir: join(dir, 'pglite'), scratchServerUrl: postgresServerUrl(), httpPort: await freePort(), lambdaPort: await freePort(),
        demoSeed: true, agentNodeId: agentMod.DEMO_NODE_ID, logDir: LOG_DIR, quiet: true, queuePrefix: `hm-bench-hosts-${process.pid}`,
      });
      db = createDb(stack.databaseUrl, 2, { queryTimeoutMs: 60_000 });
      const idle = await measureIdleAgent(stack, db, idleSeconds);
      const hostsIn = [];
      for (let i = 0; i < n; i++) {
        const nodeId = randomUUID();
        const { token } = await createToken(db, { name: `swarm ${i}`, role: 'agent', nodeId });
        hostsIn.push({ nodeId, token });
      }
      const child = spawn(process.execPath, ['--import', 'tsx', resolve('bench/lib/host-swarm.ts')], {
        env: { ...process.env, HM_SWARM: JSON.stringify({ apiUrl: stack.apiUrl, queueEndpoint: stack.queueEndpoint, hosts: hostsIn, seconds, heartbeatS: 10, telemetryS: 10, waitS: 20 }) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: child.stdout! });
      const next = () => new Promise<Record<string, any>>((res, rej) => {
        const onLine = (l: string) => {
          try {
            const v = JSON.parse(l);
            lines.off('line', onLine);
            res(v);
          } catch {
            /* not ours */
          }
        };
        lines.on('line', onLine);
        child.once('exit', (code) => rej(new Error(`the host swarm exited (${code}) early`)));
      });
      const regStart = performance.now();
      await next();
      const registerMs = performance.now() - regStart;
      // PostgreSQL flushes a busy backend's table statistics within about a second, an idle one's within 10 s
      await new Promise((r) => setTimeout(r, 11_000));
      const s0 = await tableStats(db);
      const tS0 = performance.now();
      const size0 = await dbSize(db);
      // the swarm's window began when it had registered, before the statistics wait
      const stopAt = Date.now() + Math.max(3, seconds - 13) * 1000;
      const [e25, e12] = await Promise.all([
        timedGets(`${stack.apiUrl}/notifications/count`, stack.adminToken, stopAt, 250),
        timedGets(`${stack.apiUrl}/cluster/backups/events/remote?page=1&size=25`, stack.adminToken, stopAt, 500),
      ]);
      const summaryMsg = await next();
      const tEnd = performance.now();
      const { summary } = summaryMsg as { summary: { wallS: number; counts: Record<string, number>; firstError: string; cpuUserMs: number; cpuSystemMs: number; rssMaxBytes: number } };
      await new Promise((r) => setTimeout(r, 11_000));
      const s1 = await tableStats(db);
      const size1 = await dbSize(db);
      // rows: what the swarm wrote from the first statistics snapshot to its window's end (a busy backend's
      // counts reach the statistics within a second; the wait above collects the rest); the demo node's
      // agent keeps running beside the swarm: one more host writing rows
      const statsS = (tEnd - tS0) / 1000;
      const scale = DAY_S / statsS / (n + 1);
      const perTable = [...s1.values()]
        .map((t) => {
          const b = s0.get(t.relname) ?? { ins: 0, upd: 0, del: 0 };
          return { name: t.relname, ins: (t.ins - b.ins) * scale, upd: (t.upd - b.upd) * scale };
        })
        .filter((t) => t.ins >= 1 || t.upd >= 1)
        .sort((a, b) => b.ins + b.upd - (a.ins + a.upd));
      const c = summary.counts;
      const cpToApi = c.heartbeat + c.telemetry;
      const rows: Row[] = [
        {
          section, what: `requests/s (${n} hosts, ${summary.wallS.toFixed(0)} s)`, value: `${(cpToApi / summary.wallS).toFixed(1)} /s API + ${(c.receive / summary.wallS).toFixed(1)} /s ReceiveMessage`, ok: summary.firstError ? false : null,
          note: summary.firstError
            ? `a request failed: ${summary.firstError} (${c.errors} errors)`
            : `heartbeats ${c.heartbeat}, telemetry posts ${c.telemetry}, long polls ${c.receive} (per host: ${(cpToApi / summary.wallS / n).toFixed(3)} API req/s, ${(c.receive / summary.wallS / n).toFixed(3)} ReceiveMessage/s); registration of all ${n} took ${fmtMs(registerMs)}`,
        },
        ...perTable.map((t) => ({ section, what: `  rows/host/day ${t.name}`, value: `${Math.round(t.ins).toLocaleString('en')} ins, ${Math.round(t.upd).toLocaleString('en')} upd`, ok: null })),
        {
          section, what: 'store growth per host per day', value: `${(((size1 - size0) * scale) / 2 ** 20).toFixed(2)} MiB`, ok: null,
          note: `pg_database_size over the window (${((size1 - size0) / 2 ** 20).toFixed(1)} MiB in ${statsS.toFixed(0)} s for ${n} + 1 hosts), before any retention prunes: raw telemetry is kept 24 h, so this is the first day's growth; heap pages are allocated in steps, so short runs are coarse`,
        },
        { section, what: 'E25 under load', value: `p50 ${fmtMs(percentile(e25.ms, 50))} / p99 ${fmtMs(percentile(e25.ms, 99))}`, ok: e25.failed ? false : null, note: e25.failed ? `a request failed: ${e25.failed}` : `${e25.ms.length} requests through serverless-offline` },
        { section, what: 'E12 under load', value: `p50 ${fmtMs(percentile(e12.ms, 50))} / p99 ${fmtMs(percentile(e12.ms, 99))}`, ok: e12.failed ? false : null, note: e12.failed ? `a request failed: ${e12.failed}` : `${e12.ms.length} requests (the demo seed's events) through serverless-offline` },
        {
          section, what: 'swarm process per host', value: `${((summary.cpuUserMs + summary.cpuSystemMs) / summary.wallS / 10 / n).toFixed(4)} % core, ${(summary.rssMaxBytes / n / 2 ** 20).toFixed(2)} MiB`, ok: null,
          note: `the in-process simulated hosts (wire only, no collectors): ${((summary.cpuUserMs + summary.cpuSystemMs) / summary.wallS / 10).toFixed(1)} % of a core and ${(summary.rssMaxBytes / 2 ** 20).toFixed(0)} MiB RSS for all ${n}`,
        },
      ];

      return [...idle, ...rows];
    } finally {
      await db?.destroy().catch(() => undefined);
      await stack?.stop().catch((e) => console.error('bench hosts stop:', (e as Error).message));
      for (const k of Object.keys(process.env)) if (!(k in envBefore)) delete process.env[k];
      Object.assign(process.env, envBefore);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

await runAlone(import.meta, hosts);
