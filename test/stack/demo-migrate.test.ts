// @tier e2e
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '#scripts/stack/ports';

/**
 * What a newcomer does first: `npm start` on an empty store (the demo seed, shared/seed/demo.json), then
 * `npm run hostmgr -- jail migrate 101 --to fbsd-03` in a terminal. The demo's other member must be able to take
 * the jail (a `tank/jails` to receive `tank/jails/101` into), so the bar reaches 100 % and the command exits 0.
 */
const FBSD01 = '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01';
const FBSD03 = 'c41d2e7a-9b3f-4e1a-8d25-6f0e7a9b1c03';

let child: ChildProcess;
let out = '';
let dir: string;
let apiUrl: string;
let adminToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hm-demo-'));
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}/api`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HM_LOCAL_DIR: dir,
    HM_HTTP_PORT: String(port),
    HM_LAMBDA_PORT: String(await freePort()),
    HM_PGLITE_PORT: String(await freePort()),
    HM_QUEUE_PORT: String(await freePort()),
  };
  for (const k of ['DATABASE_URL', 'HM_ADMIN_TOKEN', 'HM_AGENT_NODE', 'HM_SEED', 'HM_SIM_PROFILE', 'HM_QUEUE_ENDPOINT', 'HM_QUEUE_PREFIX']) delete env[k];
  // its own process group, as in a terminal, so the end of the test stops all of it
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
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
    process.kill(-child.pid!, 'SIGINT');
    await until('npm start to stop', async () => (child.exitCode !== null ? true : undefined), 30_000).catch(() => process.kill(-child.pid!, 'SIGKILL'));
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

/** hostmgr as a user runs it, in a pseudo-terminal (script(1)) so it draws its progress bar. */
function hostmgrInTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const argv = [process.execPath, '--import', 'tsx', 'cli/main.ts', ...args];
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: dir, HOSTMGR_URL: apiUrl, HOSTMGR_TOKEN: adminToken };
  return new Promise((resolve) => {
    const p = spawn('script', ['-qfec', argv.map(quote).join(' '), '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    p.stdout!.on('data', (c) => (output += c));
    p.stderr!.on('data', (c) => (output += c));
    p.stdin!.end();
    p.once('close', (code) => resolve({ code, output }));
  });
}

test('after npm start, `hostmgr jail migrate 101 --to fbsd-03` follows the move to 100 % and the jail runs on fbsd-03', async () => {
  await until('fbsd-01 and fbsd-03 online', async () => {
    const list = (await get('/cluster/nodes')).body.data?.data as Array<{ id: string; online: boolean }> | undefined;
    return [FBSD01, FBSD03].every((id) => list?.some((n) => n.id === id && n.online)) ? true : undefined;
  });
  // the agent's start-up work on the jail (re-applied hooks and limits) must be done first, else 409 jail_busy
  await until('jail 101 known and at rest', async () => {
    if ((await get('/jail/101')).status !== 200) return undefined;
    const list = (await get('/tasks?resource=jail:101')).body.data?.data as Array<{ status: string }> | undefined;
    return list && !list.some((t) => t.status === 'queued' || t.status === 'running') ? true : undefined;
  });

  const run = await hostmgrInTerminal(['jail', 'migrate', '101', '--to', 'fbsd-03']);
  expect({ code: run.code, ended: /ended: \S+.*/.exec(run.output)?.[0] }).toEqual({ code: 0, ended: expect.stringMatching(/^ended: success/) });
  expect(run.output).toMatch(/task \d+ \[=+\] 100% \| done/);

  const jail = (await get('/jail/101')).body.data;
  expect({ nodeId: jail.nodeId, state: jail.state }).toEqual({ nodeId: FBSD03, state: 'running' });
}, 240_000);
