/**
 * N simulated hosts in one process, speaking the real agent wire (the agent's own AgentClient, telemetry loop
 * and NodeQueue): register with an inventory, then a telemetry sample every 10 s posted in batches (every
 * `batchS`, as nobody watches these nodes), a bare heartbeat only when nothing was answered within
 * `heartbeatS` (the agent's rule), and a 20 s long poll of the node's queue, as the agent does at rest. No executor runs: the inventory and samples are synthetic (two
 * pools), so what this process costs is the wire, not a host's collectors — the real agent's own cost is
 * measured separately (bench/hosts.ts, idle agent). Inventory is reported at registration only, as the agent
 * reports it only when it changed.
 * Input: HM_SWARM (JSON). Output: one JSON line `{"registered":…}`, then after the window one summary line.
 */
import { randomUUID } from 'node:crypto';
import { AgentApi } from '#agent/runtime/api';
import { AgentClient } from '#agent/runtime/client';
import { NodeQueue } from '#agent/sqs/queue';
import { createTelemetryLoop } from '#agent/runtime/telemetry-loop';
import { syntheticPools as pools, syntheticSample } from './synthetic-host.ts';

interface SwarmInput {
  apiUrl: string;
  queueEndpoint: string;
  hosts: Array<{ nodeId: string; token: string }>;
  seconds: number;
  heartbeatS: number;
  telemetryS: number;
  /** seconds between telemetry posts while nobody watches */
  batchS: number;
  waitS: number;
}

const input = JSON.parse(process.env.HM_SWARM ?? '{}') as SwarmInput;
const quiet = () => undefined;
const counts: Record<string, number> = { register: 0, heartbeat: 0, telemetry: 0, receive: 0, errors: 0 };
let firstError = '';
const stop = new AbortController();

const sampleOf = (host: number, k: number) => syntheticSample(host, k, input.telemetryS);

const failed = (err: unknown) => {
  counts.errors++;
  firstError ||= (err as Error).message;
};

async function register(i: number) {
  const h = input.hosts[i];
  const api = new AgentClient(new AgentApi(input.apiUrl, h.token, quiet, 30_000));
  const inventory = { hostname: `swarm-${i}`, os: 'FreeBSD 14.3-RELEASE', cpus: 8, memoryBytes: 32 << 30, pools: pools(i), disks: [] };
  const reg = await api.register(
    { id: h.nodeId, name: `swarm-${i}`, ip: `10.9.${i >> 8}.${i & 255}`, inventory, agentVersion: 'swarm', heartbeatIntervalS: input.heartbeatS },
    { attempts: 5 },
  );
  counts.register++;
  return { api, queue: new NodeQueue({ url: reg.queueUrl, endpoint: input.queueEndpoint, visibilityS: 60, waitS: input.waitS }) };
}

/** A pause that ends early when the window closes. */
const sleep = (ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    stop.signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
  });

async function every(ms: number, offset: number, fn: () => Promise<unknown>) {
  await sleep(offset);
  while (!stop.signal.aborted) {
    const t = Date.now();
    await fn().catch((e) => stop.signal.aborted || failed(e));
    await sleep(Math.max(0, ms - (Date.now() - t)));
  }
}

const hosts = [];
for (let i = 0; i < input.hosts.length; i += 10) hosts.push(...(await Promise.all(input.hosts.slice(i, i + 10).map((_, j) => register(i + j)))));
console.log(JSON.stringify({ registered: hosts.length, id: randomUUID() }));
for (const k of Object.keys(counts)) if (k !== 'register') counts[k] = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let rssMax = 0;
const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 1000);
const loops = hosts.flatMap((h, i) => {
  let k = 0;
  let heardAt = Number.NEGATIVE_INFINITY;
  const tickMs = input.telemetryS * 1000;
  const spread = (i / hosts.length) * input.batchS * 1000;
  const telemetry = createTelemetryLoop({
    exec: { kind: 'simulator', run: async () => ({ code: 1, stdout: '', stderr: 'no executor in the swarm' }) },
    api: { telemetry: (samples, retry) => h.api.telemetry(samples, retry).then((a) => (counts.telemetry++, a)) },
    log: (level, msg, fields) => level !== 'info' && !stop.signal.aborted && failed(new Error(`${msg} ${JSON.stringify(fields ?? {})}`)),
    intervalSeconds: input.telemetryS,
    batchSeconds: input.batchS,
    collect: async () => sampleOf(i, ++k) as never,
    heard: () => (heardAt = Date.now()),
  });
  return [
    every(tickMs, spread, () => telemetry.tick()),
    // the agent's heartbeat rule: a bare heartbeat only when nothing was answered within the interval
    every(tickMs, spread + tickMs / 2, async () => {
      if (Date.now() - heardAt < input.heartbeatS * 1000 + Math.min(tickMs, (input.heartbeatS * 1000) / 2) - tickMs / 2) return;
      await h.api.heartbeat();
      counts.heartbeat++;
      heardAt = Date.now();
    }),
    every(0, spread, () => h.queue.receive(1, stop.signal).then(() => counts.receive++)),
  ];
});
// the window closes at a fixed time: what completed by then counts (a long poll in flight is cut off)
let cpu = { user: 0, system: 0 };
let wallS = 0;
let final: Record<string, number> = {};
setTimeout(() => {
  cpu = process.cpuUsage(cpu0);
  wallS = (performance.now() - t0) / 1000;
  final = { ...counts };
  stop.abort();
}, input.seconds * 1000);
await Promise.all(loops);
clearInterval(rssTimer);
console.log(
  JSON.stringify({
    summary: {
      wallS,
      counts: final,
      firstError,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      rssMaxBytes: rssMax,
      heapUsedBytes: process.memoryUsage().heapUsed,
    },
  }),
);
process.exit(0);
