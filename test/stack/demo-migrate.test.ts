// @tier e2e
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { freePort } from '#scripts/stack/ports';

/**
 * What a newcomer does first: `npm start` on an empty store (the demo seed, shared/seed/demo.json), then in a
 * terminal, with `hostmgr` only: stop VM 201, give it the guest agent channel (E5), cloud-init (E17) and VNC (E19),
 * start it, and see it running with them; stop and start jail 101, whose E3 hooks run (the simulated host's state
 * says so); `jail migrate 101 --to fbsd-03`. The demo's other member must be able to take the jail (a `tank/jails`
 * to receive `tank/jails/101` into), so the bar reaches 100 % and the command exits 0.
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

/** The demo node's simulated host as its state file holds it now. */
const hostState = () =>
  JSON.parse(readFileSync(join(dir, 'simulator', `${FBSD01}.json`), 'utf8')) as {
    vms: Array<{ rid: number; state: string; xml: string }>;
    jails: Array<{ ctid: number; state: string; hookRuns?: Array<{ phase: string; command: string }> }>;
  };

async function atRest(resource: string) {
  await until(`${resource} at rest`, async () => {
    const list = (await get(`/tasks?resource=${resource}`)).body.data?.data as Array<{ status: string }> | undefined;
    return list && !list.some((t) => t.status === 'queued' || t.status === 'running') ? true : undefined;
  });
}

test('the walk: stop VM 201 with hostmgr, E5, E17 and E19 on it, start it; it runs with them, as the console reads it', async () => {
  await until('fbsd-01 online with VM 201', async () => ((await get('/vm/201')).status === 200 ? true : undefined));
  await atRest('vm:201');
  const stop = await hostmgrInTerminal(['vm', 'stop', 'web01']);
  expect({ code: stop.code, ended: /ended: \S+/.exec(stop.output)?.[0] }).toEqual({ code: 0, ended: 'ended: success' });
  expect(hostState().vms.find((v) => v.rid === 201)?.state).toBe('shut off');

  for (const args of [
    ['vm-options-qemu-guest-agent', 'web01', '--enabled', 'true'],
    ['vm-options-cloud-init', 'web01', '--data', '#cloud-config\nhostname: web01\n', '--metadata', 'instance-id: web01\n', '--network-config', ''],
    ['vm-hardware-vnc', 'web01', '--vnc-enabled', 'true', '--vnc-resolution', '1920x1080', '--vnc-wait', 'false', '--vnc-port', '5901'],
  ]) {
    const r = await hostmgrInTerminal(args);
    expect({ args: args[0], code: r.code }).toEqual({ args: args[0], code: 0 });
  }
  await atRest('vm:201');
  const start = await hostmgrInTerminal(['vm', 'start', 'web01']);
  expect({ code: start.code, ended: /ended: \S+/.exec(start.output)?.[0] }).toEqual({ code: 0, ended: 'ended: success' });

  const tasks = (await get('/tasks?resource=vm:201&size=50')).body.data.data as Array<{ kind: string; status: string }>;
  expect(tasks.filter((t) => t.status !== 'success')).toEqual([]);
  expect(new Set(tasks.map((t) => t.kind))).toEqual(new Set(['vm.power', 'vm.guest-agent', 'vm.cloud-init', 'vm.vnc']));
  // what the VM's console page shows
  const vm = (await get('/vm/201')).body.data;
  expect({ state: vm.state, qga: vm.options.qemuGuestAgent, vnc: [vm.options.vnc.enabled, vm.options.vnc.port, vm.options.vnc.resolution] }).toEqual({
    state: 'running',
    qga: true,
    vnc: [true, 5901, '1920x1080'],
  });
  expect(vm.options.cloudInit).toMatchObject({ dataSet: true, metadataSet: true });
  // and the host runs the domain as defined: the guest agent channel, the cloud-init seed, the VNC port
  const domain = hostState().vms.find((v) => v.rid === 201)!;
  expect(domain.state).toBe('running');
  expect(domain.xml).toContain("name='org.qemu.guest_agent.0'");
  expect(domain.xml).toContain('/var/db/hostmgr/vms/201/cloud-init.iso');
  expect(domain.xml).toContain("<graphics type='vnc' port='5901'");
}, 240_000);

test('the walk: `hostmgr jail stop www` and `jail start www` run jail 101’s E3 hooks on its host', async () => {
  await until('jail 101 known', async () => ((await get('/jail/101')).status === 200 ? true : undefined));
  await atRest('jail:101');
  const runsOf = () => (hostState().jails.find((j) => j.ctid === 101)?.hookRuns ?? []).map((r) => r.phase);
  const before = runsOf().length;
  const stop = await hostmgrInTerminal(['jail', 'stop', 'www']);
  expect({ code: stop.code, ended: /ended: \S+/.exec(stop.output)?.[0] }).toEqual({ code: 0, ended: 'ended: success' });
  expect(hostState().jails.find((j) => j.ctid === 101)?.state).toBe('stopped');
  expect(runsOf().slice(before)).toEqual(['stop', 'poststop']);
  const start = await hostmgrInTerminal(['jail', 'start', 'www']);
  expect({ code: start.code, ended: /ended: \S+/.exec(start.output)?.[0] }).toEqual({ code: 0, ended: 'ended: success' });
  expect(runsOf().slice(before)).toEqual(['stop', 'poststop', 'prestart', 'start', 'poststart']);
  expect((await get('/jail/101')).body.data.state).toBe('running');
}, 120_000);

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
