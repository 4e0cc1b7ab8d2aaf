import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeRunningStack } from '#scripts/stack/running-stack';
import { adminToken, apiUrl, call } from '../helpers/api.ts';

/**
 * hostmgr beside a running `npm start`, with no --url, HOSTMGR_URL or login: it finds the stack as `npm run token`
 * does — through the stack.json npm start writes in $HM_LOCAL_DIR (default .local) — and uses its API with the admin
 * token npm start keeps there, never printing it. The record here points at the suite's stack and names this test's
 * process as the stack's (a live pid), written by npm start's own writer.
 */
// the bundle (built by ensure-built): it runs from any directory, as `.local` is found relative to the working one
const MAIN = resolve('dist/cli/hostmgr.js');
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hm-cli-local-'));
  mkdirSync(join(root, 'config'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A local dir as npm start leaves it: stack.json and the kept admin token (0600). */
function localStack(dir: string, over: { pid?: number; token?: string | null } = {}): void {
  mkdirSync(dir, { recursive: true });
  const tokenFile = join(dir, 'admin-token');
  if (over.token !== null) writeFileSync(tokenFile, `${over.token ?? adminToken()}\n`, { mode: 0o600 });
  writeRunningStack(dir, { apiUrl: apiUrl().replace(/\/api$/, ''), storeUrl: 'postgres://unused', adminTokenFile: over.token === null ? null : tokenFile });
  if (over.pid !== undefined) {
    const path = join(dir, 'stack.json');
    const s = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...s, pid: over.pid }));
  }
}

function hostmgr(args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(root, 'config'), ...o.env };
  for (const k of ['HOSTMGR_URL', 'HOSTMGR_TOKEN', 'HM_ADMIN_TOKEN', 'HM_LOCAL_DIR']) if (!o.env || !(k in o.env)) delete env[k];
  return new Promise((done) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

test('from the directory npm start runs in (.local), hostmgr uses its API and kept admin token; the token is never printed', async () => {
  localStack(join(root, '.local'));
  const res = await hostmgr(['notifications-count', '--json'], { cwd: root });
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(JSON.parse(res.stdout)).toEqual((await call('GET', '/notifications/count')).body.data);
  expect(res.stdout + res.stderr).not.toContain(adminToken());
});

test('HM_LOCAL_DIR names another local dir; HOSTMGR_TOKEN wins over the kept token', async () => {
  const dir = join(root, 'elsewhere');
  localStack(dir, { token: 'hm_not-a-valid-token' });
  const kept = await hostmgr(['notifications-count'], { cwd: tmpdir(), env: { HM_LOCAL_DIR: dir } });
  expect(kept.code).toBe(1);
  expect(kept.stderr).toMatch(/HTTP 401/);
  const given = await hostmgr(['notifications-count', '--json'], { cwd: tmpdir(), env: { HM_LOCAL_DIR: dir, HOSTMGR_TOKEN: adminToken() } });
  expect(given.code).toBe(0);
});

test('an explicit HOSTMGR_URL wins over the running stack', async () => {
  localStack(join(root, '.local'));
  const res = await hostmgr(['notifications-count'], { cwd: root, env: { HOSTMGR_URL: 'http://127.0.0.1:1/api', HOSTMGR_TOKEN: adminToken() } });
  expect(res.code).toBe(1);
  expect(res.stderr).toContain('127.0.0.1:1');
});

test('a stack.json whose process is gone, or none: no API URL, and the error says where hostmgr looked', async () => {
  const gone = spawnSync('true').pid;
  localStack(join(root, '.local'), { pid: gone });
  const stale = await hostmgr(['notifications-count'], { cwd: root });
  expect(stale.code).toBe(1);
  expect(stale.stderr).toMatch(/^error: no API URL: .*npm start/);
  rmSync(join(root, '.local'), { recursive: true });
  const none = await hostmgr(['notifications-count'], { cwd: root });
  expect(none.code).toBe(1);
  expect(none.stderr).toMatch(/^error: no API URL/);
});

test('a stack started with HM_ADMIN_TOKEN keeps no token: hostmgr says to give one', async () => {
  localStack(join(root, '.local'), { token: null });
  const res = await hostmgr(['notifications-count'], { cwd: root });
  expect(res.code).toBe(1);
  expect(res.stderr).toContain('no token for the running stack');
  const given = await hostmgr(['notifications-count'], { cwd: root, env: { HM_ADMIN_TOKEN: adminToken() } });
  expect(given.code).toBe(0);
});
