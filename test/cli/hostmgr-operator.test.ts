import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiUrl, call, testDb, tokenFor, uid } from '../helpers/api.ts';
import { insertNode, probeTask } from '../helpers/agent.ts';

/**
 * The hostmgr CLI as an operator meets it: help that starts with the daily commands, names where ids are
 * expected, a cancel that says when it came too late — against the suite's stack — and, against servers of
 * this file's own that answer what a hostile or misconfigured server would, redirects to another origin
 * refused, terminal control sequences neutralised, the login token never echoed nor required as an argument.
 */
let config: string;
beforeEach(() => {
  config = mkdtempSync(join(tmpdir(), 'hm-cli-op-'));
});
afterEach(() => rmSync(config, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function hostmgr(
  args: string[],
  o: { env?: NodeJS.ProcessEnv; tty?: boolean; stdin?: string; onOutput?: (text: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: config, HOSTMGR_URL: apiUrl(), HOSTMGR_TOKEN: process.env.HM_TEST_ADMIN_TOKEN, ...o.env };
  for (const [k, v] of Object.entries(o.env ?? {})) if (v === undefined) delete env[k];
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
    if (!o.onOutput) child.stdin!.end(o.stdin ?? '');
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A server of the test's own: answers by the handler, records every request with its body. */
interface Recorded {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
}
async function server(handle: (req: Recorded, res: import('node:http').ServerResponse) => void): Promise<{ url: string; seen: Recorded[]; srv: Server }> {
  const seen: Recorded[] = [];
  const srv = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body };
      seen.push(r);
      handle(r, res);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, seen, srv };
}
const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
async function serve(handle: Parameters<typeof server>[0]) {
  const s = await server(handle);
  servers.push(s.srv);
  return s;
}
const envelope = (data: unknown, message = 'ok') => JSON.stringify({ status: 'success', message, error: '', data });

test('--help lists login and the daily verbs first; the agent-* routes only with --all', async () => {
  const help = await hostmgr(['--help']);
  expect(help.code).toBe(0);
  const commands = help.stdout.slice(help.stdout.indexOf('Commands:'));
  expect(commands).toMatch(/^Commands:\n {2}login <url>/);
  expect(commands.indexOf('  nodes')).toBeLessThan(commands.indexOf('API operations (by operationId):'));
  expect(help.stdout).toMatch(/^ {2}jail-get <ctid>/m);
  expect(help.stdout).not.toMatch(/^ {2}agent-/m);
  const all = await hostmgr(['--help', '--all']);
  expect(all.stdout).toMatch(/^Agent routes \(what a node agent calls\):\n {2}agent-/m);
  expect(all.stdout).toMatch(/^ {2}agent-heartbeat\b/m);
  // hidden from the list, not from use: the route still answers (here: refused for an admin token, 403)
  const used = await hostmgr(['agent-heartbeat']);
  expect(used.stderr).toMatch(/^error: forbidden/m);
});

test('node and guest names are taken wherever their ids are; a pending node’s copy of a jail is not listed', async () => {
  const T = uid();
  const ctid = 700_000 + Math.floor(Math.random() * 200_000);
  const member = await insertNode(randomUUID(), { status: 'member' });
  const pending = await insertNode(randomUUID(), { status: 'pending' });
  const jail = { ctid, name: `web-${T}`, state: 'running', hostname: 'web.example', dataset: `zroot/jails/${ctid}` };
  for (const [id, name] of [
    [member, `lab-${T}`],
    [pending, `new-${T}`],
  ])
    await testDb()
      .updateTable('nodes')
      .set({ name, inventory: JSON.stringify({ hostname: name, jails: [jail], vms: [] }) })
      .where('id', '=', id)
      .execute();

  const node = await hostmgr(['nodes-get', `lab-${T}`, '--json']);
  expect(`${node.code} ${node.stderr}`).toBe('0 ');
  expect(JSON.parse(node.stdout).id).toBe(member);

  const tasks = await hostmgr(['tasks-list', '--node-id', `lab-${T}`, '--json']);
  expect(tasks.code).toBe(0);
  const t = await probeTask(member, { dispatch: false });
  const listed = await hostmgr(['tasks-list', '--node-id', `lab-${T}`, '--json']);
  expect((JSON.parse(listed.stdout) as { data: { id: number }[] }).data.map((x) => x.id)).toEqual([t.id]);

  // the jail's name stands for its ctid: the request names the ctid (this jail is only reported, so 404 by ctid)
  const byName = await hostmgr(['jail-get', `web-${T}`]);
  expect(byName.stderr).toContain(`jail ${ctid} does not exist`);
  const unknown = await hostmgr(['jail-get', `nope-${T}`]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(new RegExp(`no jail "nope-${T}"\\. jails: .*web-${T} \\(${ctid} on lab-${T}\\)`));
  const noNode = await hostmgr(['nodes-get', `nowhere-${T}`]);
  expect(noNode.stderr).toContain(`no node "nowhere-${T}"`);

  const jails = await hostmgr(['jails', '--json']);
  const rows = (JSON.parse(jails.stdout) as { ctid: number; node: string }[]).filter((j) => j.ctid === ctid);
  expect(rows).toEqual([expect.objectContaining({ ctid, node: `lab-${T}` })]);
});

test('task cancel: 0 when the task ends cancelled, 6 when it had already ended', async () => {
  const nodeId = await insertNode(randomUUID(), { status: 'member' });
  const t = await probeTask(nodeId, { dispatch: false });
  const first = await hostmgr(['task', 'cancel', String(t.id)]);
  expect(`${first.code} ${first.stdout}${first.stderr}`).toBe(`0 task ${t.id} cancelled\n`);
  expect((await call('GET', `/tasks/${t.id}`, { token: await tokenFor('viewer') })).body.data.status).toBe('cancelled');
  const again = await hostmgr(['task', 'cancel', String(t.id)]);
  expect(again.code).toBe(6);
  expect(again.stderr).toMatch(new RegExp(`^error: too late: task ${t.id} already ended cancelled`, 'm'));
});

test('a redirect to another origin is not followed: nothing (token, method, body) reaches it, and login saves nothing', async () => {
  const foreign = await serve((_r, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(envelope({ count: 0 }));
  });
  const api = await serve((r, res) => {
    // a same-origin 308 is followed with its method and body; anything else goes to the foreign server
    if (r.url.startsWith('/api/vm/5/hardware/vnc') && !r.url.includes('moved')) res.writeHead(308, { location: '/api/vm/5/hardware/vnc?moved=1' }).end();
    else if (r.url.includes('moved')) res.writeHead(200, { 'content-type': 'application/json' }).end(envelope({ ok: true }));
    else res.writeHead(307, { location: `${foreign.url}${r.url}` }).end();
  });
  const env = { HOSTMGR_URL: api.url, HOSTMGR_TOKEN: 'hm_secret_token' };

  const vnc = await hostmgr(['vm-hardware-vnc', '7', '--vnc-password', 'vnc-secret'], { env });
  expect(vnc.code).toBe(1);
  expect(vnc.stderr).toMatch(/redirected \(HTTP 307\) to another server, http:\/\/127\.0\.0\.1:\d+: not followed/);
  expect(api.seen.at(-1)).toMatchObject({ method: expect.stringMatching(/PUT|POST|PATCH/), auth: 'Bearer hm_secret_token' });
  expect(api.seen.at(-1)!.body).toContain('vnc-secret');

  const same = await hostmgr(['vm-hardware-vnc', '5', '--vnc-password', 'again'], { env });
  expect(same.code).toBe(0);
  expect(api.seen.slice(-2).map((r) => [r.method, r.url, r.body.includes('again')])).toEqual([
    [api.seen.at(-2)!.method, '/api/vm/5/hardware/vnc', true],
    [api.seen.at(-2)!.method, '/api/vm/5/hardware/vnc?moved=1', true],
  ]);

  const login = await hostmgr(['login', api.url], { env: { HOSTMGR_URL: undefined, HOSTMGR_TOKEN: 'hm_secret_token' } });
  expect(login.code).toBe(1);
  expect(login.stderr).toContain('to another server');
  expect(existsSync(join(config, 'hostmgr', 'config.json'))).toBe(false);
  expect(foreign.seen).toEqual([]);
});

test('control characters and escape sequences from the API are shown as visible escapes, never sent to the terminal', async () => {
  const ESC = '\u001b';
  const evil = `x${ESC}[2J${ESC}]0;owned\u0007\rover\u009b31m\u202eabc`;
  const api = await serve((r, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (r.url.startsWith('/api/cluster/nodes?'))
      res.end(envelope({ data: [{ id: 'n1', name: evil, ip: '192.0.2.1', status: 'member', online: true, lastSeenAt: null }], total: 1 }));
    else if (r.url === '/api/tasks/9')
      res.end(envelope({ id: 9, kind: `k${ESC}[1A`, status: 'failed', phase: `p${ESC}[K`, progress: 100, error: `bad${ESC}[31m\nsecond line` }));
    else res.end(envelope({ note: evil }));
  });
  const env = { HOSTMGR_URL: api.url, HOSTMGR_TOKEN: 'hm_x' };
  for (const args of [['nodes'], ['nodes', '--json'], ['task', 'watch', '9'], ['auth-whoami']]) {
    const run = await hostmgr(args, { env });
    const out = run.stdout + run.stderr;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding a control character that reached the terminal is the point
    expect({ args, bad: out.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/g) }).toEqual({ args, bad: null });
    if (!args.includes('--json')) expect(out).toMatch(/\\x1b/);
  }
  const nodes = await hostmgr(['nodes'], { env });
  expect(nodes.stdout).toContain('x\\x1b[2J\\x1b]0;owned\\x07\\x0dover\\x9b31m\\u202eabc');
  const json = await hostmgr(['nodes', '--json'], { env });
  expect(JSON.parse(json.stdout)[0].name).toBe(evil);
  const watch = await hostmgr(['task', 'watch', '9'], { env });
  expect(watch.code).toBe(3);
  expect(watch.stdout).toContain('ended: failed — bad\\x1b[31m\nsecond line');
});

test('login: the token typed at a prompt is not echoed, piped on stdin, or from HOSTMGR_TOKEN; never an argument', async () => {
  const token = `hm_${'T'.repeat(43)}`;
  const api = await serve((r, res) => {
    const ok = r.auth === `Bearer ${token}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(ok ? envelope({ count: 0 }) : JSON.stringify({ status: 'error', message: 'unauthorized', error: 'bad token', data: null }));
  });
  const file = join(config, 'hostmgr', 'config.json');
  const noToken = { HOSTMGR_URL: undefined, HOSTMGR_TOKEN: undefined };

  // in a terminal: the prompt, then the token typed once the prompt is up; the terminal shows no token
  let typed = false;
  const tty = await hostmgr(['login', api.url], {
    env: noToken,
    tty: true,
    onOutput: (text, child) => {
      if (!typed && text.includes('token: ')) {
        typed = true;
        child.stdin!.write(`${token}\r`);
      }
    },
  });
  expect(`${tty.code} ${tty.stdout}`).toMatch(/^0 token: \s*logged in to/);
  expect(tty.stdout).not.toContain('TTTT');
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: `${api.url}/api`, token });
  rmSync(file);

  const piped = await hostmgr(['login', api.url], { env: noToken, stdin: `${token}\n` });
  expect(piped.code).toBe(0);
  expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(token);
  rmSync(file);

  const fromEnv = await hostmgr(['login', api.url], { env: { HOSTMGR_URL: undefined, HOSTMGR_TOKEN: token } });
  expect(fromEnv.code).toBe(0);
  expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(token);
  rmSync(file);

  const refused = await hostmgr(['login', api.url], { env: noToken, stdin: 'hm_wrong\n' });
  expect(refused.code).toBe(1);
  expect(existsSync(file)).toBe(false);
  // the help shows the prompt, a pipe and the variable, not a token argument
  const help = await hostmgr(['login', '--help']);
  expect(help.stdout).toContain('HOSTMGR_TOKEN=hm_… hostmgr login');
  expect(help.stdout).not.toMatch(/login \S+ --token/);
}, 60_000);
