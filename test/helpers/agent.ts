/**
 * Agents for tests: real agent processes (the agent's simulator build, dist/simulator/agent.js) against the
 * test stack, each with its own node, token, simulated host and state dir, which a test can stop (SIGTERM),
 * kill -9 and restart. Also what tests need to arrange tasks through the same code the functions use
 * (createTask + dispatchTask).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { createToken } from '#shared/auth/tokens';
import { createTask, type NewTask } from '#shared/jobs/tasks';
import { dispatchTask } from '#shared/jobs/dispatch';
import { inTransaction } from '#store/tx';
import type { TaskKind } from '#shared/agent-api/task-kinds';
import type { TaskRow } from '#store/tables';
import type { SimHost } from '#shared/seed/host/schema';
import { ensureSimulatorState } from '#scripts/stack/local-agent';
import { startAgentProcess, type AgentProcess } from '#scripts/stack/agent';
import { apiUrl, testDb } from './api.ts';
import { patient } from './patience.ts';

interface StackFile {
  queueEndpoint: string;
  queuePrefix: string;
}

/** The test stack's queue; also points this (jest) process's queue code at it. */
export function stackQueue(): StackFile {
  const s = JSON.parse(readFileSync(process.env.HM_TEST_STACK!, 'utf8')) as StackFile;
  process.env.HM_QUEUE_ENDPOINT = s.queueEndpoint;
  process.env.HM_QUEUE_PREFIX = s.queuePrefix;
  return s;
}

/** A small simulated FreeBSD host (no pools): enough for inventory, heartbeats and `host.probe`. */
export function testHost(overrides: Partial<SimHost> = {}): SimHost {
  return {
    hostname: `test-${Math.random().toString(36).slice(2, 8)}.example.org`,
    cpus: 4,
    memoryBytes: 8 * 1024 ** 3,
    disks: [{ name: 'ada0', sizeBytes: 256 * 1000 ** 3 }],
    pools: [],
    datasets: [],
    sysctls: [{ name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false }],
    arc: { sizeBytes: 2 * 1024 ** 3, targetBytes: 2 * 1024 ** 3, minBytes: 256 * 1024 ** 2, maxBytes: 6 * 1024 ** 3 },
    ...overrides,
  };
}

/** The simulated host's sshd key file, so its agent registers that key's fingerprint (peers pin it). */
export const hostKeyFile = (pub: string): SimHost['files'] => ({ '/etc/ssh/ssh_host_ed25519_key.pub': { content: pub, mode: '0644' } });

/** A host for jails: pool zroot on ada0, zroot/jails, and a dataset per jail (1 MiB used; 1 GiB for a jail named `big`). */
export function testJailHost(jails: SimHost['jails'], files?: SimHost['files']): SimHost {
  return testHost({
    ...(files ? { files } : {}),
    cpus: 4,
    pools: [{ name: 'zroot', vdevs: [{ type: 'disk', name: 'ada0' }], allocatedBytes: 40 * 2 ** 30 }],
    datasets: [
      { name: 'zroot', type: 'filesystem', usedBytes: 40 * 2 ** 30, mountpoint: 'none' },
      { name: 'zroot/jails', type: 'filesystem', usedBytes: 10 * 2 ** 30, mountpoint: '/zroot/jails' },
      ...(jails ?? []).map((j) => ({
        name: j.dataset!,
        type: 'filesystem' as const,
        usedBytes: j.name === 'big' ? 2 ** 30 : 2 ** 20,
        mountpoint: `/${j.dataset}`,
      })),
    ],
    jails,
  });
}

/** A node row as a registered agent would leave it (for tests without an agent process). */
export async function insertNode(id = randomUUID(), fields: { status?: string; lastSeenAt?: Date | null; heartbeatIntervalS?: number } = {}): Promise<string> {
  await testDb()
    .insertInto('nodes')
    .values({
      id,
      name: `node-${id.slice(0, 8)}`,
      ip: '192.0.2.10',
      status: fields.status ?? 'pending',
      inventory: JSON.stringify({ hostname: `node-${id.slice(0, 8)}`, os: 'FreeBSD 14.1-RELEASE', cpus: 4, memoryBytes: 1 }),
      last_seen_at: fields.lastSeenAt === undefined ? sql<Date>`now()` : fields.lastSeenAt,
      heartbeat_interval_s: fields.heartbeatIntervalS ?? 10,
    })
    .execute();
  return id;
}

export type TestTaskSpec<K extends TaskKind> = Omit<NewTask<K>, 'requestedBy'> & { requestedBy?: NewTask<K>['requestedBy']; dispatch?: boolean };

/** Creates a task like a function does (one transaction, then the message after commit unless `dispatch: false`). */
export async function queueTask<K extends TaskKind>(spec: TestTaskSpec<K>): Promise<TaskRow> {
  stackQueue();
  const { dispatch = true, requestedBy = 'test', ...rest } = spec;
  const task = await inTransaction(testDb(), (trx) => createTask(trx, { ...rest, requestedBy }));
  if (dispatch) await dispatchTask(task, testDb());
  return task;
}

export const probeTask = (nodeId: string, opts: { holdMs?: number; sysctls?: string[]; resource?: string; dispatch?: boolean } = {}) =>
  queueTask({
    kind: 'host.probe',
    nodeId,
    resource: opts.resource ?? `probe:${randomUUID()}`,
    payload: { sysctls: opts.sysctls ?? ['kern.hostname', 'hw.ncpu'], holdMs: opts.holdMs ?? 0 },
    dispatch: opts.dispatch,
  });

export const getTaskRow = (id: number) => testDb().selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Polls until `probe` returns a truthy value; throws with `what` (and the last value) on timeout. */
export async function waitUntil<T>(what: string, probe: () => Promise<T>, timeoutMs = 20_000, everyMs = 100): Promise<NonNullable<T>> {
  const until = Date.now() + patient(timeoutMs);
  let last: T | undefined;
  while (Date.now() < until) {
    last = await probe();
    if (last) return last as NonNullable<T>;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${patient(timeoutMs)} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
}

/** Waits until the task's status is one of `statuses`; returns the row. */
export const waitForTask = (id: number, statuses: TaskRow['status'][], timeoutMs = 20_000) =>
  waitUntil(
    `task ${id} to be ${statuses.join('|')}`,
    async () => {
      const t = await getTaskRow(id);
      return statuses.includes(t.status) ? t : null;
    },
    timeoutMs,
  );

export interface TestAgentOptions {
  nodeId?: string;
  host?: SimHost;
  /** another API URL (a proxy in front of the stack) */
  apiUrl?: string;
  heartbeatS?: number;
  visibilityS?: number;
  concurrency?: number;
  /** more agent flags */
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

export interface TestAgent {
  nodeId: string;
  token: string;
  statePath: string;
  stateDir: string;
  logFile: string;
  proc: AgentProcess;
  /** resolves once the agent consumes its queue */
  ready(timeoutMs?: number): Promise<void>;
  stop(timeoutMs?: number): Promise<number | null>;
  kill(): Promise<number | null>;
  /** a new process for the same node, host and state dir (after stop or kill) */
  restart(overrides?: Partial<TestAgentOptions>): Promise<TestAgent>;
  log(): string;
}

const running = new Set<TestAgent>();
afterAll(async () => {
  await Promise.all([...running].map((a) => a.kill()));
  running.clear();
});

/** Starts an agent process for a (new) node with its own simulated host; the node registers itself. */
export async function startTestAgent(o: TestAgentOptions = {}, reuse?: { token: string; base: string }): Promise<TestAgent> {
  if (!existsSync('dist/simulator/agent.js')) throw new Error('dist/simulator/agent.js is missing: run `npm run build` before the agent tests');
  const q = stackQueue();
  const nodeId = o.nodeId ?? randomUUID();
  const base = reuse?.base ?? resolve('.local/test-agents', nodeId);
  if (!reuse) rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const statePath = join(base, 'host.json');
  ensureSimulatorState(statePath, o.host ?? testHost());
  const token = reuse?.token ?? (await createToken(testDb(), { name: `test agent ${nodeId}`, role: 'agent', nodeId })).token;
  const logFile = join(base, 'agent.log');
  const proc = startAgentProcess({
    apiUrl: o.apiUrl ?? apiUrl(),
    token,
    nodeId,
    simulatorState: statePath,
    stateDir: join(base, 'state'),
    queueEndpoint: q.queueEndpoint,
    queuePrefix: q.queuePrefix,
    logFile,
    args: [
      '--heartbeat-interval',
      String(o.heartbeatS ?? 1),
      '--visibility-timeout',
      String(o.visibilityS ?? 6),
      '--concurrency',
      String(o.concurrency ?? 4),
      '--poll-wait',
      '5',
      '--inventory-interval',
      '3600',
      ...(o.args ?? []),
    ],
    env: { HM_AGENT_DEBUG: '', ...o.env },
  });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const agent: TestAgent = {
    nodeId,
    token,
    statePath,
    stateDir: join(base, 'state'),
    logFile,
    proc,
    log,
    ready: async (timeoutMs = 20_000) => {
      await waitUntil(
        `agent ${nodeId} to consume (log ${logFile})`,
        async () => {
          const l = log()
            .split('\n')
            .filter((x) => x.includes(`"pid":${proc.pid}`));
          if (l.some((x) => x.includes('"level":"error"') && x.includes('agent failed'))) throw new Error(`agent failed: ${l.join('\n')}`);
          return l.some((x) => x.includes('"msg":"consuming"'));
        },
        timeoutMs,
      );
    },
    stop: async (t) => {
      const code = await proc.stop(t);
      running.delete(agent);
      return code;
    },
    kill: async () => {
      const code = await proc.kill();
      running.delete(agent);
      return code;
    },
    restart: (overrides = {}) => startTestAgent({ ...o, ...overrides, nodeId }, { token, base }),
  };
  running.add(agent);
  return agent;
}

/** Waits for the agent's node to register, then makes it a cluster member (what E16 does; tests that are not about joining skip it). */
export async function admitAsMember(agent: Pick<TestAgent, 'nodeId'>): Promise<void> {
  await waitUntil(`node ${agent.nodeId} registered`, () => testDb().selectFrom('nodes').select('id').where('id', '=', agent.nodeId).executeTakeFirst());
  await testDb().updateTable('nodes').set({ status: 'member' }).where('id', '=', agent.nodeId).execute();
}
