/**
 * Steady-state cost per host (PostgreSQL): the local stack (serverless-offline, fauxqs, a scratch PostgreSQL
 * database) with BENCH_HOSTS simulated hosts (default 200) in one child process (bench/lib/host-swarm.ts: the
 * agent's own client and queue code, synthetic inventory and samples, the agent's cadence: heartbeat and
 * telemetry every 10 s, a 20 s long poll) for BENCH_HOSTS_SECONDS (default 120) after all registered. Reports
 * requests/s to the control plane, rows inserted/updated per host per day per table (pg_stat_user_tables),
 * store growth per host per day (pg_database_size), E25 and E12 p50/p99 while under that load, and the swarm
 * process's CPU and memory per host. Before that, the production agent (dist/agent/agent.js with the rc.d
 * script's node flags, local executor, the simulator's programs as its host's) idle against the local stack for
 * BENCH_IDLE_AGENT_SECONDS (default 60): its RSS and CPU share, judged against 64 MiB and 0.2 % of a core, and
 * its requests per hour to the API and to SQS, counted on the wire, from BENCH_IDLE_SETTLE_SECONDS (default 65,
 * one inventory interval) after its start-up tasks ended. BENCH_HOSTS=0 measures the idle agent only.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { createDb } from '#store/db';
import { createToken } from '#shared/auth/tokens';
import { freePort } from '#scripts/stack/ports';
import { fmtMs, percentile } from './lib/stats.ts';
import { postgresServerUrl, postgresUnavailable, withStore } from './lib/stores.ts';
import { startLambdaHttp } from './lib/lambda-http.ts';
import { builtFunctions } from './lib/routes.ts';
import { withQuietLog } from './lib/invoke.ts';
import { seedBackupEvents } from './lib/seed-backups.ts';
import { startLocalQueue } from '#scripts/stack/queue';
import { runAlone, type Bench, type Row } from './lib/report.ts';
import { simulatorPrograms } from './lib/sim-programs.ts';
import { apiRoute, countingProxy, sqsAction } from './lib/counting-proxy.ts';
import { costPerHostMonth, readPrices } from './lib/prices.ts';
import { functionMemoryMb } from './lib/function-memory.ts';
import { telemetryRowBytes, type TelemetryTable } from './lib/row-bytes.ts';
import { telemetryRetention } from '#shared/domain/telemetry/retention';
import { SETTINGS } from '#shared/config/settings';

const LOG_DIR = resolve('.local/bench-logs/hosts');
const DAY_S = 86_400;

interface TableStat {
  relname: string;
  ins: number;
  upd: number;
  del: number;
}

async function tableStats(db: Kysely<Database>): Promise<Map<string, TableStat>> {
  const r = await sql<TableStat>`SELECT relname, n_tup_ins::bigint AS ins, n_tup_upd::bigint AS upd, n_tup_del::bigint AS del FROM pg_stat_user_tables`.execute(
    db,
  );
  return new Map(r.rows.map((x) => [x.relname, { relname: x.relname, ins: Number(x.ins), upd: Number(x.upd), del: Number(x.del) }]));
}

const dbSize = async (db: Kysely<Database>) =>
  Number((await sql<{ n: number }>`SELECT pg_database_size(current_database())::bigint AS n`.execute(db)).rows[0].n);

/**
 * Each telemetry table's bytes per stored row (lib/row-bytes.ts: growth over a scratch copy filled with the
 * table's own rows, not its size over a few rows). A table the run did not fill takes a sibling's figure, and
 * says so: a roll-up table its raw table's (the same columns and one more), the ARC table the pool table's (a
 * short run may end before a host's second sample, the first with ARC deltas).
 */
async function rowSizes(db: Kysely<Database>): Promise<{ bytes: Map<string, number>; how: string }> {
  const measured = await telemetryRowBytes(db);
  const stand = (t: TelemetryTable): TelemetryTable[] =>
    t.endsWith('_rollups')
      ? [t.replace(/_rollups$/, '') as TelemetryTable, ...stand(t.replace(/_rollups$/, '') as TelemetryTable)]
      : t === 'arc_telemetry'
        ? ['pool_telemetry']
        : [];
  const bytes = new Map<string, number>();
  const how: string[] = [];
  for (const [t, m] of measured) {
    if (m) {
      bytes.set(t, m.bytes);
      how.push(`${t} ${m.bytes.toFixed(0)} B (${m.measuredRows.toLocaleString('en')} rows copied from ${m.sourceRows.toLocaleString('en')})`);
      continue;
    }
    const other = stand(t).find((s) => measured.get(s));
    if (!other) continue;
    bytes.set(t, measured.get(other)!.bytes);
    how.push(`${t} ${measured.get(other)!.bytes.toFixed(0)} B (no rows this run: ${other}'s)`);
  }
  return { bytes, how: how.join(', ') };
}

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

/** Node's flags for the agent as the rc.d script gives them by default (`hostmgr_agent_node_flags`). */
export function rcNodeFlags(): string[] {
  const m = /^: \$\{hostmgr_agent_node_flags:="([^"]*)"\}/m.exec(readFileSync(resolve('agent/service/hostmgr-agent'), 'utf8'));
  return (m?.[1] ?? '').split(/\s+/).filter(Boolean);
}

const perHour = (n: number, wallS: number) => (n * 3600) / wallS;

/** BENCH_AGENT_ENV's NAME=value pairs: settings the idle agent gets on top of the rc.d script's. */
function agentEnv(): Record<string, string> {
  return Object.fromEntries(
    (process.env.BENCH_AGENT_ENV ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.split('=')[0], kv.slice(kv.indexOf('=') + 1)]),
  );
}

/** One of the idle agent's cadence settings as it runs: BENCH_AGENT_ENV's value, else the settings table's default. */
const agentSetting = (name: 'HM_TELEMETRY_BATCH_INTERVAL' | 'HM_HEARTBEAT_INTERVAL') => `${name}, ${agentEnv()[name] ?? SETTINGS[name].default} s`;

/**
 * The production agent (dist/agent/agent.js, local executor, the rc.d script's node flags) on the demo node's
 * simulated host, once it is registered, through its first samples and idle: RSS and CPU share from /proc
 * over the window, and every request it makes, counted on the wire by proxies in front of the API and the
 * queue. Its host commands are real child processes (lib/sim-programs.ts), whose cost is not the agent's.
 */
async function measureIdleAgent(stack: { apiUrl: string; queueEndpoint: string }, db: Kysely<Database>, dir: string, seconds: number): Promise<Row[]> {
  const settleSeconds = Number(process.env.BENCH_IDLE_SETTLE_SECONDS ?? 65);
  const section = 'idle agent (production build)';
  const agentMod = await import('#scripts/stack/local-agent');
  const { productionAgentCommand } = await import('#scripts/stack/agent');
  const nodeId = agentMod.DEMO_NODE_ID;
  const host = agentMod.seedHost(agentMod.DEMO_SEED_FILE, nodeId);
  if (!host) return [{ section, what: 'RSS / CPU', value: 'skipped', ok: false, note: `the demo seed has no simulated host for ${nodeId}` }];
  const statePath = join(dir, 'sim', 'host.json');
  agentMod.ensureSimulatorState(statePath, host);
  const bin = await simulatorPrograms(join(dir, 'sim'));
  const { token } = await createToken(db, { name: 'bench idle agent', role: 'agent', nodeId });
  const api = await countingProxy(stack.apiUrl, apiRoute);
  const sqs = await countingProxy(stack.queueEndpoint, sqsAction);
  // BENCH_AGENT_NODE_FLAGS: other node flags to try (e.g. --cpu-prof), instead of the rc.d script's
  const flags = process.env.BENCH_AGENT_NODE_FLAGS !== undefined ? process.env.BENCH_AGENT_NODE_FLAGS.split(/\s+/).filter(Boolean) : rcNodeFlags();
  const logFile = join(LOG_DIR, 'idle-agent.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(
    process.execPath,
    [...flags, ...productionAgentCommand(), '--executor', 'local', '--node-id', nodeId, '--node-name', 'bench-idle', '--node-ip', '127.0.0.1'],
    {
      // what the rc.d script gives it: rc's PATH, the control plane, a state dir; HM_AGENT_PATH: the simulated programs
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        HM_API_URL: api.url,
        HM_AGENT_TOKEN: token,
        HM_STATE_DIR: join(dir, 'agent-state'),
        HM_QUEUE_ENDPOINT: sqs.url,
        HM_AGENT_PATH: bin,
        HM_SIM_STATE: statePath,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        // BENCH_AGENT_ENV: more agent settings to try, NAME=value pairs (e.g. HM_INVENTORY_INTERVAL=300)
        ...agentEnv(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const pid = child.pid!;
    // registered, its persisted configuration re-applied (tasks at start) and through its first two samples (an
    // ARC row needs two): idle from here on
    const until = Date.now() + 180_000;
    while (Date.now() < until) {
      const seen = await db.selectFrom('arc_telemetry').select('id').where('node_id', '=', nodeId).executeTakeFirst();
      const busy = await db.selectFrom('tasks').select('id').where('node_id', '=', nodeId).where('status', 'in', ['queued', 'running']).executeTakeFirst();
      if ((seen && !busy) || child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (child.exitCode !== null)
      return [{ section, what: 'RSS / CPU', value: 'crashed', ok: false, note: `the agent exited (${child.exitCode}); see ${logFile}` }];
    // the agent sweeps the whole inventory after every task, so the window opens once that sweep is over:
    // one inventory interval later (BENCH_IDLE_SETTLE_SECONDS), what an idle host does hour after hour
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    const api0 = new Map(api.counts);
    const sqs0 = new Map(sqs.counts);
    const callsLog = join(dir, 'sim', 'calls.log');
    const calls = () => (existsSync(callsLog) ? readFileSync(callsLog, 'utf8').split('\n').filter(Boolean) : []);
    const calls0 = calls().length;
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
    const delta = (now: Map<string, number>, before: Map<string, number>) =>
      [...now].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0);
    const apiReq = delta(api.counts, api0);
    const sqsReq = delta(sqs.counts, sqs0);
    const apiN = apiReq.reduce((s, [, v]) => s + v, 0);
    const receives = sqsReq.find(([k]) => k === 'ReceiveMessage')?.[1] ?? 0;
    const sqsN = sqsReq.reduce((s, [, v]) => s + v, 0);
    const list = (xs: (readonly [string, number])[]) => xs.map(([k, v]) => `${k} ${v}`).join(', ');
    const hostCalls = new Map<string, number>();
    for (const c of calls().slice(calls0)) hostCalls.set(c, (hostCalls.get(c) ?? 0) + 1);
    const hostN = [...hostCalls.values()].reduce((a, b) => a + b, 0);
    const watched = await watchedWindow(stack.apiUrl, db, nodeId, api.counts, seconds);
    return [
      {
        section,
        what: 'RSS (max over the window)',
        value: `${(rssMax / 2 ** 20).toFixed(1)} MiB`,
        target: '≤ 64 MiB',
        ok: rssMax <= 64 * 2 ** 20,
        note: `pid ${pid}, ${wallS.toFixed(0)} s idle, node ${flags.join(' ') || '(no flags)'}; /proc/<pid>/status VmRSS each second (${(a1.rssBytes / 2 ** 20).toFixed(1)} MiB at the end)`,
      },
      {
        section,
        what: 'CPU',
        value: `${cpuPct.toFixed(3)} % of a core`,
        target: '≤ 0.2 %',
        ok: cpuPct <= 0.2,
        note: 'utime+stime of the agent process from /proc/<pid>/stat over the window (10 ms ticks; its host commands not included)',
      },
      {
        section,
        what: 'host commands/minute',
        value: `${((hostN * 60) / wallS).toFixed(1)} /min`,
        ok: null,
        note: `processes the agent spawned: ${list([...hostCalls].sort((a, b) => b[1] - a[1]))} in ${wallS.toFixed(0)} s`,
      },
      {
        section,
        what: 'control-plane requests/hour (unwatched)',
        value: `${perHour(apiN, wallS).toFixed(0)} /h`,
        ok: null,
        note: `${list(apiReq)} in ${wallS.toFixed(0)} s (counted on the wire); nobody reads the node: telemetry goes in batches (${agentSetting('HM_TELEMETRY_BATCH_INTERVAL')}), a bare heartbeat only when no post was answered within the heartbeat interval (${agentSetting('HM_HEARTBEAT_INTERVAL')})`,
      },
      {
        section,
        what: 'control-plane requests/hour (watched)',
        value: `${perHour(watched.n, watched.wallS).toFixed(0)} /h`,
        ok: null,
        note: `${list(watched.req)} in ${watched.wallS.toFixed(0)} s while the bench polled E14 for the node every 10 s as the console does (${watched.polls} polls), from ${watched.switchS} s after the first poll (the agent learns it from the answer to its next batch)`,
      },
      {
        section,
        what: 'SQS ReceiveMessage/hour',
        value: `${perHour(receives, wallS).toFixed(0)} /h (${((perHour(receives, wallS) * 730) / 1000).toFixed(1)} k/month)`,
        ok: null,
        note: `all SQS calls: ${list(sqsReq) || 'none'} in ${wallS.toFixed(0)} s; an empty queue answers a 20 s long poll after 20 s; a month is 730 h`,
      },
      {
        section,
        what: 'SQS requests/hour (all)',
        value: `${perHour(sqsN, wallS).toFixed(0)} /h`,
        ok: null,
      },
    ];
  } finally {
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(t);
    await api.close();
    await sqs.close();
  }
}

/**
 * The idle agent while someone watches: the bench polls E14 for the node every 10 s as the console's charts do,
 * waits BENCH_IDLE_SWITCH_SECONDS (70: one batch interval and a tick) for the agent to learn it, then counts the
 * agent's requests for `seconds`.
 */
async function watchedWindow(apiUrl: string, db: Kysely<Database>, nodeId: string, counts: Map<string, number>, seconds: number) {
  const switchS = Number(process.env.BENCH_IDLE_SWITCH_SECONDS ?? 70);
  const { token } = await createToken(db, { name: 'bench console', role: 'viewer' });
  let cursors = { pool: 0, arc: 0 };
  let polls = 0;
  const poll = async () => {
    const res = await fetch(`${apiUrl}/zfs/dashboard/history/delta?poolAfter=${cursors.pool}&arcAfter=${cursors.arc}&nodeId=${nodeId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status === 200) cursors = ((await res.json()) as { data: { cursors: typeof cursors } }).data.cursors;
    polls++;
  };
  await poll();
  const timer = setInterval(() => void poll().catch(() => undefined), 10_000);
  try {
    await new Promise((r) => setTimeout(r, switchS * 1000));
    const before = new Map(counts);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const req = [...counts].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0);
    return { req, n: req.reduce((a, [, v]) => a + v, 0), wallS: (performance.now() - t0) / 1000, polls, switchS };
  } finally {
    clearInterval(timer);
  }
}

/** The idle-agent phase: the local stack (serverless-offline, fauxqs, PostgreSQL) with the production agent of the demo node. */
async function idlePhase(seconds: number, dir: string): Promise<Row[]> {
  const stackMod = await import('#scripts/stack/stack');
  let stack: Awaited<ReturnType<typeof stackMod.startStack>> | undefined;
  let db: Kysely<Database> | undefined;
  try {
    stack = await stackMod.startStack({
      dataDir: join(dir, 'pglite'),
      scratchServerUrl: postgresServerUrl(),
      httpPort: await freePort(),
      lambdaPort: await freePort(),
      demoSeed: true,
      logDir: LOG_DIR,
      quiet: true,
      queuePrefix: `hm-bench-idle-${process.pid}`,
      // idle: no scheduled backup runs reach the agent
      backupScheduleEveryMs: 0,
    });
    db = createDb(stack.databaseUrl, 2, { queryTimeoutMs: 60_000 });
    return await measureIdleAgent(stack, db, dir, seconds);
  } finally {
    await db?.destroy().catch(() => undefined);
    await stack?.stop().catch((e) => console.error('bench hosts stop:', (e as Error).message));
  }
}

/**
 * `$ per host per month` for 100 / 1 000 / 10 000 hosts, from this run's own counts — the agent's invocations
 * per host per day and their mean duration, its long polls, the telemetry rows a host keeps (raw samples
 * HM_TELEMETRY_RAW_HOURS, 1-minute roll-ups 7 days, 5-minute 90 days, at the measured bytes per row) — and the
 * price table of docs/scale.md. Per-request prices scale with each host; the one DLQ alarm is shared.
 */
function costRows(
  section: string,
  agentInv: Array<{ m: string; count: number; ms: number }>,
  statsS: number,
  n: number,
  receivesPerHostDay: number,
  perTable: Array<{ name: string; ins: number }>,
  bytesPerRow: Map<string, number>,
): Row[] {
  const prices = readPrices();
  const memoryOf = functionMemoryMb();
  const invocations = agentInv.map((x) => ({ perDay: (x.count * DAY_S) / statsS / n, meanMs: x.ms / x.count, memoryMb: memoryOf(`functions/agent/${x.m}`) }));
  // rows a host keeps once retention runs (the settings' bounds): raw samples every 10 s for HM_TELEMETRY_RAW_HOURS,
  // 1-minute roll-ups HM_TELEMETRY_MINUTE_DAYS, 5-minute ones HM_TELEMETRY_FIVE_MINUTE_DAYS; one row per pool
  // and one ARC row per sample (or bucket). Pools per host: pool rows per ARC row, whatever the window's edges cut off
  const raw = perTable.find((t) => t.name === 'pool_telemetry');
  const arc = perTable.find((t) => t.name === 'arc_telemetry');
  const poolsPerHost = raw && arc && arc.ins > 0 ? Math.max(1, Math.round(raw.ins / arc.ins)) : 2;
  const keep = telemetryRetention();
  const rawKept = keep.rawHours * 360;
  const rollupsKept = keep.minuteDays * 1440 + keep.fiveMinuteDays * 288;
  const kept: Array<[TelemetryTable, number]> = [
    ['pool_telemetry', poolsPerHost * rawKept],
    ['arc_telemetry', rawKept],
    ['pool_telemetry_rollups', poolsPerHost * rollupsKept],
    ['arc_telemetry_rollups', rollupsKept],
  ];
  const keptRows = kept.reduce((a, [, rows]) => a + rows, 0);
  const keptBytes = kept.reduce((a, [t, rows]) => a + rows * (bytesPerRow.get(t) ?? Number.NaN), 0);
  const storeGb = keptBytes / 1e9;
  const usage = { invocations, sqsPerDay: receivesPerHostDay, storeGb };
  return [100, 1000, 10_000].map((hosts) => {
    const { total, parts } = costPerHostMonth(usage, hosts, prices);
    return {
      section,
      what: `$ per host per month (${hosts.toLocaleString('en')} hosts)`,
      value: `$${total.toFixed(3)} (${(total * hosts).toFixed(0)} $/month)`,
      target: hosts === 1000 ? '≤ $0.15' : undefined,
      ok: hosts === 1000 ? total <= 0.15 : null,
      note: `${Object.entries(parts)
        .map(([k, v]) => `${k} ${v.toFixed(4)}`)
        .join(
          ', ',
        )}; ${Math.round(invocations.reduce((a, x) => a + x.perDay, 0))} invocations and ${Math.round(receivesPerHostDay)} long polls per host per day (measured; long polls at least one per 20 s), ${(storeGb * 1000).toFixed(0)} MB kept (${keptRows.toLocaleString('en')} rows, ${(keptBytes / keptRows).toFixed(0)} B a row on average, measured per table); prices: docs/scale.md; database instance not included`,
    };
  });
}

/** The routes the simulated hosts and the dashboard reads reach. */
const SWARM_ROUTES = (path: string) => path.startsWith('/api/agent/') || path === E25_ROUTE || path === E12_ROUTE;
const E25_ROUTE = '/api/notifications/count';
const E12_ROUTE = '/api/cluster/backups/events/remote';

/** The swarm phase: N simulated hosts against the built functions served in-process (lib/lambda-http.ts). */
async function swarmPhase(n: number, seconds: number): Promise<Row[]> {
  const section = 'steady state per host (postgres)';
  // PostgreSQL flushes a busy backend's table statistics within about a second, an idle one's within 10 s, and
  // any backend's as it exits: BENCH_STATS_WAIT_SECONDS below 11 has the functions' pools close idle connections
  // after 200 ms, so every backend that wrote has flushed by then
  const statsWaitS = Number(process.env.BENCH_STATS_WAIT_SECONDS ?? 11);
  return withStore('postgres', async (store) => {
    await seedBackupEvents(store.db, 10_000);
    const queue = await startLocalQueue(0);
    Object.assign(process.env, {
      DATABASE_URL: store.url,
      HM_DB_POOL_MAX: '4',
      ...(statsWaitS < 11 ? { HM_DB_IDLE_TIMEOUT_MS: '200' } : {}),
      HM_QUEUE_ENDPOINT: queue.endpoint,
      HM_QUEUE_PREFIX: `hm-bench-hosts-${process.pid}`,
      HM_SCHEDULES_ENABLED: 'false',
    });
    const server = await startLambdaHttp(
      builtFunctions().filter((f) => SWARM_ROUTES(f.route.path)),
      `hosts-${process.pid}`,
    );
    try {
      return await withQuietLog(async () => {
        const hostsIn = [];
        for (let i = 0; i < n; i++) {
          const nodeId = randomUUID();
          const { token } = await createToken(store.db, { name: `swarm ${i}`, role: 'agent', nodeId });
          hostsIn.push({ nodeId, token });
        }
        const child = spawn(process.execPath, ['--import', 'tsx', resolve('bench/lib/host-swarm.ts')], {
          env: {
            ...process.env,
            HM_SWARM: JSON.stringify({
              apiUrl: `${server.url}/api`,
              queueEndpoint: queue.endpoint,
              hosts: hostsIn,
              seconds,
              heartbeatS: 60,
              telemetryS: 10,
              batchS: 60,
              waitS: 20,
            }),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const lines = createInterface({ input: child.stdout! });
        const next = () =>
          new Promise<Record<string, any>>((res, rej) => {
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
        await new Promise((r) => setTimeout(r, statsWaitS * 1000));
        const s0 = await tableStats(store.db);
        const size0 = await dbSize(store.db);
        const tS0 = performance.now();
        const inv0 = new Map([...server.stats].map(([k, v]) => [k, { ...v, ms: [...v.ms], statuses: { ...v.statuses } }]));
        // the swarm's window began when it had registered, before the statistics wait
        const stopAt = Date.now() + Math.max(3, seconds - statsWaitS - 2) * 1000;
        const [e25, e12] = await Promise.all([
          timedGets(`${server.url}${E25_ROUTE}`, store.adminToken, stopAt, 250),
          timedGets(`${server.url}${E12_ROUTE}?page=1&size=25`, store.adminToken, stopAt, 500),
        ]);
        const summaryMsg = await next();
        const tEnd = performance.now();
        const inv1 = new Map([...server.stats].map(([k, v]) => [k, { ...v, ms: [...v.ms], statuses: { ...v.statuses } }]));
        const { summary } = summaryMsg as {
          summary: { wallS: number; counts: Record<string, number>; firstError: string; cpuUserMs: number; cpuSystemMs: number; rssMaxBytes: number };
        };
        await new Promise((r) => setTimeout(r, statsWaitS * 1000));
        const s1 = await tableStats(store.db);
        const size1 = await dbSize(store.db);
        const { bytes: bytesPerRow, how: rowBytesHow } = await rowSizes(store.db);
        // rows: what the swarm wrote from the first statistics snapshot to its window's end
        const statsS = (tEnd - tS0) / 1000;
        const scale = DAY_S / statsS / n;
        const perTable = [...s1.values()]
          .map((t) => {
            const b = s0.get(t.relname) ?? { ins: 0, upd: 0, del: 0 };
            return { name: t.relname, ins: (t.ins - b.ins) * scale, upd: (t.upd - b.upd) * scale };
          })
          .filter((t) => t.ins >= 1 || t.upd >= 1)
          .sort((a, b) => b.ins + b.upd - (a.ins + a.upd));
        // agent invocations over the same span, per host per day, and their mean duration (Lambda bills GB-s at
        // each function's own memory)
        const memoryOf = functionMemoryMb();
        const agentInv = [...inv1]
          .filter(([m]) => m.startsWith('functions/agent/'))
          .map(([m, v]) => {
            const b = inv0.get(m) ?? { count: 0, totalMs: 0, ms: [], statuses: {} };
            const statuses = Object.entries(v.statuses)
              .map(([code, k]) => [code, k - (b.statuses[Number(code)] ?? 0)] as const)
              .filter(([, k]) => k > 0);
            return { m: m.replace('functions/agent/', ''), count: v.count - b.count, ms: v.totalMs - b.totalMs, each: v.ms.slice(b.ms.length), statuses };
          })
          .filter((x) => x.count > 0);
        const c = summary.counts;
        const api = c.heartbeat + c.telemetry;
        const rows: Row[] = [
          {
            section,
            what: `requests/s (${n} hosts, ${summary.wallS.toFixed(0)} s)`,
            value: `${(api / summary.wallS).toFixed(1)} /s API + ${(c.receive / summary.wallS).toFixed(1)} /s ReceiveMessage`,
            ok: summary.firstError ? false : null,
            note: summary.firstError
              ? `a request failed: ${summary.firstError} (${c.errors} errors)`
              : `heartbeats ${c.heartbeat}, telemetry posts ${c.telemetry}, completed long polls ${c.receive} (per host: ${(api / summary.wallS / n).toFixed(3)} API req/s, ${(c.receive / summary.wallS / n).toFixed(3)} ReceiveMessage/s); registration of all ${n} took ${fmtMs(registerMs)}`,
          },
          ...agentInv.map((x) => ({
            section,
            what: `  invocations/host/day ${x.m}`,
            value: `${Math.round((x.count * DAY_S) / statsS / n).toLocaleString('en')} × ${fmtMs(x.ms / x.count)} at ${memoryOf(`functions/agent/${x.m}`)} MB`,
            ok: null,
          })),
          // under load, how long the agent's own requests took and how many the store bound refused (503)
          ...agentInv
            .filter((x) => x.m === 'telemetry' || x.m === 'heartbeat')
            .map((x) => ({
              section,
              what: `  ${x.m} under load`,
              value: `p50 ${fmtMs(percentile(x.each, 50))} / p99 ${fmtMs(percentile(x.each, 99))}, ${x.statuses.find(([code]) => code === '503')?.[1] ?? 0} × 503`,
              ok: null,
              note: `${x.count} invocations; answered ${x.statuses.map(([code, k]) => `${code} × ${k}`).join(', ')}`,
            })),
          ...perTable.map((t) => ({
            section,
            what: `  rows/host/day ${t.name}`,
            value: `${Math.round(t.ins).toLocaleString('en')} ins, ${Math.round(t.upd).toLocaleString('en')} upd`,
            ok: null,
          })),
          {
            section,
            what: 'store growth per host per day (rows × size)',
            value: `${(perTable.reduce((sum, t) => sum + t.ins * (bytesPerRow.get(t.name) ?? 0), 0) / 2 ** 20).toFixed(2)} MiB`,
            ok: null,
            note: `telemetry rows inserted per host per day × each table’s bytes per row (heap, indexes, TOAST, measured by growth over a scratch copy filled with the table's own rows: bench/lib/row-bytes.ts): ${rowBytesHow}; other tables not counted; before retention: raw telemetry (24 h) stops growing after the first day, roll-ups after 7 and 90 days`,
          },
          {
            section,
            what: 'store growth per host per day (database size)',
            value: `${(((size1 - size0) * scale) / 2 ** 20).toFixed(2)} MiB`,
            ok: null,
            note: `pg_database_size over ${statsS.toFixed(0)} s (${((size1 - size0) / 2 ** 20).toFixed(1)} MiB for ${n} hosts), before any retention prunes: raw telemetry is kept 24 h, so this is the first day's growth; heap pages are allocated in steps, so short runs are coarse`,
          },
          {
            section,
            what: 'E25 under load',
            value: `p50 ${fmtMs(percentile(e25.ms, 50))} / p99 ${fmtMs(percentile(e25.ms, 99))}`,
            ok: e25.failed ? false : null,
            note: e25.failed ? `a request failed: ${e25.failed}` : `${e25.ms.length} requests, same server`,
          },
          {
            section,
            what: 'E12 under load',
            value: `p50 ${fmtMs(percentile(e12.ms, 50))} / p99 ${fmtMs(percentile(e12.ms, 99))}`,
            ok: e12.failed ? false : null,
            note: e12.failed ? `a request failed: ${e12.failed}` : `${e12.ms.length} requests over 10 000 backup events`,
          },
          {
            section,
            what: 'swarm process per host',
            value: `${((summary.cpuUserMs + summary.cpuSystemMs) / summary.wallS / 10 / n).toFixed(4)} % core, ${(summary.rssMaxBytes / n / 2 ** 20).toFixed(2)} MiB`,
            ok: null,
            note: `the simulated hosts (wire only, no collectors): ${((summary.cpuUserMs + summary.cpuSystemMs) / summary.wallS / 10).toFixed(1)} % of a core and ${(summary.rssMaxBytes / 2 ** 20).toFixed(0)} MiB RSS for all ${n}`,
          },
        ];
        // a long poll lasts 20 s at most on an empty queue; the swarm's are stretched by this machine's load, so
        // the design's count (which the idle production agent matches on the wire) is the floor
        const receivesPerDay = Math.max((c.receive * DAY_S) / summary.wallS / n, DAY_S / 20);
        rows.push(...costRows(section, agentInv, statsS, n, receivesPerDay, perTable, bytesPerRow));
        return rows;
      });
    } finally {
      await server.close();
      await queue.stop();
    }
  });
}

export const hosts: Bench = {
  name: 'hosts',
  async run() {
    const why = await postgresUnavailable();
    if (why) return [{ section: 'steady state per host (postgres)', what: 'per-host cost', value: 'skipped', ok: false, note: why }];
    const n = Number(process.env.BENCH_HOSTS ?? 200);
    const seconds = Number(process.env.BENCH_HOSTS_SECONDS ?? 120);
    const idleSeconds = Number(process.env.BENCH_IDLE_AGENT_SECONDS ?? 60);
    const dir = mkdtempSync(join(tmpdir(), 'hm-bench-hosts-'));
    rmSync(LOG_DIR, { recursive: true, force: true });
    mkdirSync(LOG_DIR, { recursive: true });
    const envBefore = { ...process.env };
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    try {
      const idle = await idlePhase(idleSeconds, dir);
      return [...idle, ...(n > 0 ? await swarmPhase(n, seconds) : [])];
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in envBefore)) delete process.env[k];
      Object.assign(process.env, envBefore);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

await runAlone(import.meta, hosts);
