import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operationsOf } from '#cli/operations';
import { adminToken, apiUrl, call, tokenFor } from '../helpers/api.ts';
import { admitAsMember, probeTask, startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';

/**
 * The hostmgr CLI as a user runs it: a real process against the suite's stack, in a pseudo-terminal
 * (script(1)) where a progress bar is drawn, through pipes where plain lines are.
 */
const GB = 1000 ** 3;
let config: string;
let pools: TestAgent;

beforeAll(async () => {
  config = mkdtempSync(join(tmpdir(), 'hm-cli-'));
  // a resilver of 4 s, read every 150 ms: long enough to see the bar move and to detach from it
  pools = await startTestAgent({
    host: testHost({
      disks: ['ada0', 'ada1', 'ada2', 'ada3', 'ada4'].map((name) => ({ name, sizeBytes: 100 * GB })),
      pools: [
        {
          name: 'clitank',
          vdevs: [
            {
              type: 'mirror',
              children: [
                { type: 'disk', name: 'ada1' },
                { type: 'disk', name: 'ada2' },
              ],
            },
          ],
          allocatedBytes: 20 * GB,
        },
      ],
    }),
    env: { HM_SIM_RESILVER_MS: '4000', HM_RESILVER_POLL_MS: '150' },
  });
  await pools.ready();
  await admitAsMember(pools);
}, 90_000);

afterAll(() => rmSync(config, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** hostmgr with the stack's URL and a token in its environment (or none), through pipes or a pseudo-terminal */
function hostmgr(
  args: string[],
  o: { token?: string | null; tty?: boolean; stdin?: string; onOutput?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: config, HOSTMGR_URL: apiUrl() };
  if (o.token !== null) env.HOSTMGR_TOKEN = o.token ?? adminToken();
  else delete env.HOSTMGR_TOKEN;
  if (o.token === null) delete env.HOSTMGR_URL;
  const argv = [process.execPath, '--import', 'tsx', 'cli/main.ts', ...args];
  const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
  const [cmd, cmdArgs] = o.tty ? ['script', ['-qfec', argv.map(quote).join(' '), '/dev/null']] : [argv[0], argv.slice(1)];
  return new Promise((resolve) => {
    const child = spawn(cmd as string, cmdArgs as string[], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => {
      stdout += c;
      o.onOutput?.(stdout, child);
    });
    child.stderr!.on('data', (c) => (stderr += c));
    child.stdin!.end(o.stdin ?? '');
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('every operation of the OpenAPI document has a command, with --help and an example', async () => {
  // --all: the agent-* routes too (plain --help leaves them out: hostmgr-operator.test.ts)
  const help = await hostmgr(['--help', '--all']);
  expect(help.code).toBe(0);
  // the document the API serves: a route without a command fails here
  const ops = operationsOf((await call('GET', '/openapi.json', { token: await tokenFor('viewer') })).body.data);
  expect(ops.length).toBeGreaterThanOrEqual(60);
  for (const op of ops) expect(help.stdout).toMatch(new RegExp(`^  ${op.id}\\b`, 'm'));
  const one = await hostmgr(['jail-migrate', '--help']);
  expect(one.stdout).toContain('POST /api/jail/{ctid}/migrations');
  expect(one.stdout).toContain('--target-node-uuid <string>');
  expect(one.stdout).toMatch(/Example:\n {2}hostmgr jail-migrate 1\n/);
});

test('a table for people, the data as JSON for scripts; both the API’s', async () => {
  // every page of the API's list (the suite's stack holds the nodes of every test file so far)
  const api: { id: string }[] = [];
  for (let page = 1; ; page++) {
    const body = (await call('GET', `/cluster/nodes?size=100&page=${page}`)).body.data as { data: { id: string }[]; total: number };
    api.push(...body.data);
    if (!body.data.length || api.length >= body.total) break;
  }
  const json = await hostmgr(['nodes', '--json']);
  expect(json.code).toBe(0);
  expect((JSON.parse(json.stdout) as { id: string }[]).map((n) => n.id).sort()).toEqual(api.map((n) => n.id).sort());
  const text = await hostmgr(['nodes']);
  expect(text.stdout.split('\n')[0]).toMatch(/^NAME +ID +IP +STATUS +ONLINE +LASTSEENAT$/);
  expect(text.stdout).toMatch(new RegExp(`^\\S+ +${pools.nodeId} +`, 'm'));
  // a generated command: the path parameter as an argument, the envelope's data printed
  const count = await hostmgr(['notifications-count', '--json']);
  expect(JSON.parse(count.stdout)).toEqual((await call('GET', '/notifications/count')).body.data);
});

test('errors: a bad token, an unknown flag (the valid ones listed), a refused request — each with its exit code', async () => {
  const bad = await hostmgr(['nodes'], { token: `hm_${'A'.repeat(43)}` });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/^error: unauthorized/m);
  const flag = await hostmgr(['tasks-list', '--stauts', 'failed']);
  expect(flag.code).toBe(2);
  expect(flag.stderr).toContain("unknown option '--stauts'");
  expect(flag.stderr).toMatch(/valid options: .*--resource.*--status/);
  const refused = await hostmgr(['jail-get', '999999']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^error: jail_not_found: .*\(HTTP 404\)$/m);
  // an id that is no node or guest (which a name may stand for) is typed by its schema
  const typed = await hostmgr(['tasks-get', 'abc']);
  expect(typed.code).toBe(1);
  expect(typed.stderr).toContain('expected an integer, got "abc"');
  const nowhere = await hostmgr(['nodes'], { token: null });
  expect(nowhere.code).toBe(1);
  expect(nowhere.stderr).toContain('hostmgr login');
});

test('login checks the token and keeps URL and token in a 0600 file the next command uses', async () => {
  const login = await hostmgr(['login', apiUrl().replace(/\/api$/, '')], { token: null, stdin: `${adminToken()}\n` });
  expect(login.code).toBe(0);
  const file = join(config, 'hostmgr', 'config.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: apiUrl(), token: adminToken() });
  const after = await hostmgr(['notifications', 'count', '--json'], { token: null });
  expect(after.code).toBe(0);
  rmSync(file);
  const refused = await hostmgr(['login', apiUrl(), '--token', `hm_${'B'.repeat(43)}`], { token: null });
  expect(refused.code).toBe(1);
  expect(() => statSync(file)).toThrow();
});

test('a device replacement followed in a terminal: the bar goes to 100 % and the exit code is the task’s', async () => {
  const run = await hostmgr(['pool', 'replace', 'clitank', 'ada1', 'ada3', '--node', pools.nodeId], { tty: true });
  // on a mismatch jest prints what the CLI said, not only its exit code
  expect(`exit ${run.code}\n${run.stderr}\n${run.stdout.slice(-800)}`).toMatch(/^exit 0\n/);
  expect(run.stdout).toContain('device_replacement_queued: task ');
  const frames = [...run.stdout.matchAll(/task \d+ \[[=-]+\] (\d+)% \| ([a-z ]+)/g)].map((m) => Number(m[1]));
  expect(frames.some((p) => p > 0 && p < 100)).toBe(true);
  expect(frames.at(-1)).toBe(100);
  expect(run.stdout).toMatch(/task \d+ \(pool\.replace-device\) ended: success/);
}, 90_000);

test('Ctrl-C detaches: the task goes on, the CLI says how to follow or cancel it', async () => {
  let interrupted = false;
  const run = await hostmgr(['pool', 'replace', 'clitank', 'ada2', 'ada4', '--node', pools.nodeId], {
    onOutput: (text, child) => {
      if (!interrupted && /resilvering/.test(text)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    },
  });
  expect(run.code).toBe(130);
  const id = Number(/detached: task (\d+) goes on/.exec(run.stdout)?.[1]);
  expect(run.stdout).toContain(`hostmgr task watch ${id}`);
  expect(run.stdout).toContain(`hostmgr task cancel ${id}`);
  // the task was not cancelled by the detach: it ends on its own, and watching it again reports that
  expect((await waitForTask(id, ['success', 'failed', 'cancelled'], 60_000)).status).toBe('success');
  const watch = await hostmgr(['task', 'watch', String(id)]);
  expect(watch.code).toBe(0);
  expect(watch.stdout).toMatch(new RegExp(`task ${id} \\(pool\\.replace-device\\) ended: success`));
}, 90_000);

test('a failed task: its error printed, a non-zero exit code', async () => {
  const t = await probeTask(pools.nodeId, { sysctls: ['no.such.oid.anywhere'] });
  await waitForTask(t.id, ['success', 'failed'], 30_000);
  const watch = await hostmgr(['task', 'watch', String(t.id)]);
  const row = await waitUntil('the task row', async () => (await call('GET', `/tasks/${t.id}`, { token: await tokenFor('viewer') })).body.data);
  expect(row.status).toBe('failed');
  expect(watch.code).toBe(3);
  expect(watch.stdout).toContain(`ended: failed — ${row.error}`);
});
