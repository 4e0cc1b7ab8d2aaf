import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '#scripts/stack/ports';
import { runScript } from './run.ts';

/**
 * npm start keeps one admin token across restarts, and npm run token beside a running stack — on non-default
 * ports — works through its API and never opens its store a second time (which corrupted it: the next start
 * aborted). Real processes, a real PGlite data directory of their own.
 */
const SECRET = /\bhm_[A-Za-z0-9_-]{43}\b/;
const dir = mkdtempSync(join(tmpdir(), 'hm-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  adminToken: string;
  apiUrl: string;
  stdout: string;
}

async function start(): Promise<Running> {
  const env = {
    ...process.env,
    HM_LOCAL_DIR: dir,
    HM_HTTP_PORT: String(await freePort()),
    HM_LAMBDA_PORT: String(await freePort()),
    // never the default: the CLI must find the stack without guessing its port
    HM_PGLITE_PORT: String(await freePort()),
    HM_QUEUE_PORT: String(await freePort()),
    HM_AGENT_NODE: 'none',
    DATABASE_URL: '',
    HM_ADMIN_TOKEN: '',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/Try: .*\n/.test(stdout)) {
        clearInterval(timer);
        resolve();
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited ${code}: ${stderr}`));
    });
  });
  const adminToken = /Admin token: +(hm_\S+)/.exec(stdout)![1]!;
  const apiUrl = /API: +(\S+)/.exec(stdout)![1]!;
  return { child, adminToken, apiUrl, stdout };
}

async function stop(r: Running): Promise<void> {
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGINT');
  await exited;
}

/** npm run token in this local dir, with no DATABASE_URL: it must find the stack (or the store) itself. */
const token = (...args: string[]) =>
  runScript('token.ts', args, { HM_LOCAL_DIR: dir, DATABASE_URL: '', HOSTMGR_URL: '', HOSTMGR_TOKEN: '', HM_ADMIN_TOKEN: '' });

const whoami = async (apiUrl: string, secret: string) => {
  const res = await fetch(`${apiUrl}/auth/whoami`, { headers: { authorization: `Bearer ${secret}` } });
  return { status: res.status, body: (await res.json()) as { data: { name: string; role: string } | null; error: string } };
};

test('npm start three times keeps one admin token; npm run token beside it uses its API and never breaks its store', async () => {
  const first = await start();
  const file = join(dir, 'admin-token');
  expect(readFileSync(file, 'utf8').trim()).toBe(first.adminToken);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(first.stdout).toContain('for the next starts');
  expect(existsSync(join(dir, 'stack.json'))).toBe(true);
  expect(readFileSync(join(dir, 'stack.json'), 'utf8')).not.toContain(first.adminToken);

  let beside: string;
  try {
    const created = await token('create', '--role', 'viewer', '--name', 'beside-the-stack');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("in the running stack's API");
    beside = SECRET.exec(created.stdout)![0];
    expect(await whoami(first.apiUrl, beside)).toMatchObject({ status: 200, body: { data: { name: 'beside-the-stack', role: 'viewer' } } });
    const listed = await token('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/beside-the-stack\s+viewer/);
    // the stack still answers after the CLI has come and gone
    expect((await whoami(first.apiUrl, first.adminToken)).status).toBe(200);
  } finally {
    await stop(first);
  }
  expect(existsSync(join(dir, 'stack.json'))).toBe(false);

  // with no stack running, the CLI opens the data directory itself — unless another process holds it
  writeFileSync(join(dir, 'pglite.lock'), `${process.pid}\n`);
  const refused = await token('list');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`is open in process ${process.pid}`);
  rmSync(join(dir, 'pglite.lock'));

  const second = await start();
  await stop(second);
  const third = await start();
  try {
    expect(second.adminToken).toBe(first.adminToken);
    expect(third.adminToken).toBe(first.adminToken);
    expect(third.stdout).toContain('the same at every start');
    // the store survived the CLI beside the first start: the token made then still works
    expect((await whoami(third.apiUrl, beside)).status).toBe(200);
  } finally {
    await stop(third);
  }

  const all = await token('list', '--json');
  expect(all.code).toBe(0);
  const rows = JSON.parse(all.stdout) as { role: string; name: string; state: string }[];
  expect(rows.filter((r) => r.role === 'admin')).toEqual([expect.objectContaining({ name: 'admin (generated by npm start)', state: 'active' })]);
  expect(rows.filter((r) => r.name === 'beside-the-stack')).toHaveLength(1);
}, 600_000);
