// @tier e2e
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '#scripts/stack/ports';

/**
 * The local stack with a user's own seed (shared/seed/examples/three-nodes.json): the real
 * `HM_SEED=… npm start` process (scripts/start.ts) with its own directory and free ports. Every node comes
 * online under its seeded name and address with its guests, an E20 migration between two of them streams
 * over the agents' real SSH executor to the target's simulated host and ends success, and a Ctrl-C leaves
 * no process behind.
 */
const SEED = 'shared/seed/examples/three-nodes.json';
const [LAB1, LAB2, LAB3] = ['5f0b6c1e-3a42-4d8b-9c7e-1a2b3c4d5e01', '5f0b6c1e-3a42-4d8b-9c7e-1a2b3c4d5e02', '5f0b6c1e-3a42-4d8b-9c7e-1a2b3c4d5e03'];

let child: ChildProcess;
let out = '';
let dir: string;
let apiUrl: string;
let adminToken: string;
let exited: Promise<number | null>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hm-three-'));
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}/api`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HM_LOCAL_DIR: dir,
    HM_SEED: SEED,
    HM_HTTP_PORT: String(port),
    HM_LAMBDA_PORT: String(await freePort()),
    HM_PGLITE_PORT: String(await freePort()),
    HM_QUEUE_PORT: String(await freePort()),
  };
  for (const k of ['DATABASE_URL', 'HM_ADMIN_TOKEN', 'HM_AGENT_NODE', 'HM_QUEUE_ENDPOINT', 'HM_QUEUE_PREFIX']) delete env[k];
  // its own process group, as in a terminal: the Ctrl-C at the end goes to all of it
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  exited = new Promise((r) => child.once('exit', (code) => r(code)));
  adminToken = await until(
    'npm start to print its admin token',
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${out}`);
      return /Admin token:\s+(hm_[A-Za-z0-9_-]{43})/.exec(out)?.[1];
    },
    240_000,
  );
}, 300_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function get(path: string) {
  const res = await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${adminToken}` } });
  return { status: res.status, body: (await res.json()) as { status: string; data: any; error: string } };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('one agent per seeded host; every node online with its seeded name and address and its guests', async () => {
  // members first, then by name; each with its own simulated host under the stack's directory
  const agents = [...out.matchAll(/^ {4}(\S+) +(\S+) +([0-9a-f-]{36})$/gm)].map((m) => [m[1], m[2], m[3]]);
  expect(agents).toEqual([
    ['lab-1', '127.0.0.21', LAB1],
    ['lab-2', '127.0.0.22', LAB2],
    ['lab-3', '127.0.0.23', LAB3],
  ]);
  for (const id of [LAB1, LAB2, LAB3]) expect(existsSync(resolve(dir, 'simulator', `${id}.json`))).toBe(true);
  // a quiet start: the first screen is the banner (npm start --verbose shows the logs live)
  const firstScreen = out.slice(0, out.indexOf('\n', out.indexOf('  Try:'))).split('\n');
  expect(firstScreen.length).toBeLessThanOrEqual(25);
  expect(out).not.toMatch(/Function names exposed|POST \/api\/agent/);
  const nodes = await until('three nodes online', async () => {
    const res = await get('/cluster/nodes');
    const list = res.body.data?.data as Array<{ id: string; name: string; ip: string; online: boolean; status: string }>;
    return list?.length === 3 && list.every((n) => n.online) ? list : undefined;
  });
  expect(nodes.map((n) => [n.id, n.name, n.ip, n.status])).toEqual([
    [LAB1, 'lab-1', '127.0.0.21', 'member'],
    [LAB2, 'lab-2', '127.0.0.22', 'member'],
    [LAB3, 'lab-3', '127.0.0.23', 'member'],
  ]);
  for (const [ctid, node] of [
    [101, LAB1],
    [102, LAB1],
    [111, LAB2],
    [121, LAB3],
  ] as const) {
    const jail = await until(`jail ${ctid}`, async () => ((await get(`/jail/${ctid}`)).status === 200 ? (await get(`/jail/${ctid}`)).body.data : undefined));
    expect(jail.nodeId).toBe(node);
  }
  expect((await get('/vm/201')).body.data.nodeId).toBe(LAB1);
  expect((await get('/vm/202')).body.data.nodeId).toBe(LAB2);
  // the requests and the agents' lines went to the log files the banner names, not to the terminal
  expect(readFileSync(join(dir, 'logs', 'offline.log'), 'utf8')).toContain('GET /api/cluster/nodes');
  expect(readFileSync(join(dir, 'logs', `agent-${LAB1}.log`), 'utf8').length).toBeGreaterThan(0);
}, 120_000);

test('E20 between two local nodes ends success; the jail then runs on the target', async () => {
  // the agent's start-up work on the jail (re-applied hooks and limits) must be done first, else 409 jail_busy
  await until('no active task on jail 101', async () => {
    const list = (await get('/tasks?resource=jail:101')).body.data?.data as Array<{ status: string }> | undefined;
    return list && !list.some((t) => t.status === 'queued' || t.status === 'running') ? true : undefined;
  });
  const res = await fetch(`${apiUrl}/jail/101/migrations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ targetNodeUuid: LAB2 }),
  });
  expect({ status: res.status, body: res.status === 202 ? null : await res.clone().text() }).toEqual({ status: 202, body: null });
  const { data } = (await res.json()) as { data: { taskId: number } };
  const task = await until(`task ${data.taskId} to end`, async () => {
    const t = (await get(`/tasks/${data.taskId}`)).body.data;
    return ['success', 'failed', 'interrupted'].includes(t?.status) ? t : undefined;
  });
  expect({ status: task.status, error: task.error }).toEqual({ status: 'success', error: '' });
  expect(task.output).toContain(`target ${LAB2} at 127.0.0.22`);
  const jail = await until('jail 101 on lab-2', async () => {
    const j = (await get('/jail/101')).body.data;
    return j?.nodeId === LAB2 ? j : undefined;
  });
  expect(jail.state).toBe('running');
  // the source reports its inventory after the task: jail 101 is gone there
  const lab1Jails = await until(
    'lab-1 to report its jails without 101',
    async () => {
      const ids = ((await get(`/cluster/nodes/${LAB1}`)).body.data.inventory.jails as Array<{ ctid: number }>).map((j) => j.ctid);
      return ids.includes(101) ? undefined : ids;
    },
    30_000,
  );
  expect(lab1Jails).toEqual([102]);
}, 120_000);

test('Ctrl-C stops npm start and every process it started', async () => {
  const pids = [...out.matchAll(/^ {4}\S+ +\S+ +[0-9a-f-]{36}$/gm)].length;
  expect(pids).toBe(3);
  process.kill(-child.pid!, 'SIGINT');
  expect(await exited).toBe(0);
  await new Promise((r) => setTimeout(r, 1000));
  // nothing left in its process group (serverless-offline and the agents are in it)
  expect(() => process.kill(-child.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  // and nothing listening where it served
  await expect(fetch(`${apiUrl}/notifications/count`)).rejects.toThrow();
}, 90_000);
