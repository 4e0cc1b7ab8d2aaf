/**
 * The README's quick start, checked end to end on this checkout: `npm start` (its own ports, its own process
 * group as in a terminal), the API answers, an authenticated GET returns the envelope with 200, an
 * agent-backed change (E11 on the demo node's simulated host) ends `success`, and after a Ctrl-C (SIGINT to
 * the group) no process of the stack is left. Exit 0 on success, 1 with the reason otherwise.
 *   npm run quick-start-check        (ports: HM_HTTP_PORT etc., else free ones)
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { freePort } from '../stack/ports.ts';

const DEMO_NODE = '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01';
const root = process.cwd();
const step = (s: string) => console.log(`quick start: ${s}`);
const failures: string[] = [];

const env: NodeJS.ProcessEnv = {
  ...process.env,
  HM_HTTP_PORT: process.env.HM_HTTP_PORT || String(await freePort()),
  HM_LAMBDA_PORT: process.env.HM_LAMBDA_PORT || String(await freePort()),
  HM_PGLITE_PORT: process.env.HM_PGLITE_PORT || String(await freePort()),
  HM_QUEUE_PORT: process.env.HM_QUEUE_PORT || String(await freePort()),
};
delete env.HM_ADMIN_TOKEN;
delete env.HM_SEED;
delete env.HM_AGENT_NODE;
const api = `http://127.0.0.1:${env.HM_HTTP_PORT}/api`;

step(`npm start on port ${env.HM_HTTP_PORT}`);
const child = spawn('npm', ['start'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
child.stdout.on('data', (c) => (out += c));
child.stderr.on('data', (c) => (out += c));
let exitCode: number | null | undefined;
const exited = new Promise<void>((r) => child.once('exit', (code, sig) => ((exitCode = code ?? (sig ? -1 : null)), r())));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  let last = '';
  while (Date.now() < end) {
    if (exitCode !== undefined) throw new Error(`npm start exited (${exitCode}) while waiting for ${what}`);
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(500);
  }
  throw new Error(`timed out after ${ms / 1000} s waiting for ${what}${last ? ` (${last})` : ''}`);
}

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as { status: string; message: string; error: string; data: any } };
}

/** Processes of the stack still alive: in npm start's process group, or node processes working in this checkout. */
function leftovers(): string[] {
  const left: string[] = [];
  try {
    process.kill(-child.pid!, 0);
    left.push(`process group ${child.pid} still has members`);
  } catch {
    /* ESRCH: the group is empty */
  }
  if (!existsSync('/proc/self')) return left;
  // this checker's own process group (its shell pipeline) works here too and is not the stack's
  const pgidOf = (pid: string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  };
  const ownGroup = pgidOf('self');
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      // the stack is node processes (npm, tsx, serverless-offline, agents) and tsx's esbuild service
      const comm = readFileSync(`/proc/${d}/comm`, 'utf8').trim();
      if ((comm === 'node' || comm === 'npm' || comm === 'esbuild') && pgidOf(d) !== ownGroup && readlinkSync(`/proc/${d}/cwd`) === root)
        left.push(`pid ${d}: ${readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 160)}`);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return left;
}

try {
  const token = await until('"Admin token:" in the output of npm start', 300_000, async () => /Admin token:\s+(hm_[A-Za-z0-9_-]{43})/.exec(out)?.[1]);
  step('up; GET /api/notifications/count');
  const count = await call('GET', '/notifications/count', token);
  if (count.status !== 200 || count.body.status !== 'success' || typeof count.body.data?.active !== 'number') {
    throw new Error(`GET /notifications/count answered ${count.status} ${JSON.stringify(count.body)}`);
  }
  step(`waiting for the demo node's agent`);
  const tunables = await until(`node ${DEMO_NODE} online with its reported tunables`, 120_000, async () => {
    const n = await call('GET', `/cluster/nodes/${DEMO_NODE}`, token);
    return n.body.data?.online && n.body.data?.inventory?.tunables ? n.body.data : undefined;
  });
  void tunables;
  const value = String(100_000 + Math.floor(Math.random() * 100_000));
  step(`E11 PUT /api/system/tunables kern.maxfiles=${value}`);
  const put = await call('PUT', `/system/tunables?nodeId=${DEMO_NODE}`, token, { name: 'kern.maxfiles', value });
  if (put.status !== 200 || !put.body.data?.taskId) throw new Error(`E11 answered ${put.status} ${JSON.stringify(put.body)}`);
  const taskId = put.body.data.taskId;
  const task = await until(`task ${taskId} to finish`, 120_000, async () => {
    const t = await call('GET', `/tasks/${taskId}`, token);
    return ['success', 'failed', 'interrupted'].includes(t.body.data?.status) ? t.body.data : undefined;
  });
  if (task.status !== 'success') throw new Error(`task ${taskId} ended ${task.status}: ${task.error}`);
  step(`task ${taskId} ended success`);
} catch (err) {
  failures.push((err as Error).message);
}

step('Ctrl-C (SIGINT to the process group)');
try {
  process.kill(-child.pid!, 'SIGINT');
} catch {
  /* already gone */
}
// the bound's timer is cleared once npm start has exited: left pending, it kept this check alive 60 s after it passed
let bound: NodeJS.Timeout | undefined;
await Promise.race([exited, new Promise((r) => (bound = setTimeout(r, 60_000)))]);
clearTimeout(bound);
if (exitCode === undefined) failures.push('npm start did not exit within 60 s of SIGINT');
await sleep(1500);
const left = leftovers();
if (left.length) {
  failures.push(`processes left after npm start ended:\n  ${left.join('\n  ')}`);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* gone */
  }
}
if (failures.length) {
  console.error(`quick start FAILED:\n- ${failures.join('\n- ')}\n--- output of npm start (last 60 lines) ---\n${out.split('\n').slice(-60).join('\n')}`);
  process.exit(1);
}
step('passed (npm start served, a change reached the simulated host, nothing left running)');
