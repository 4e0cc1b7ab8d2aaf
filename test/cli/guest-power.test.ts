import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiUrl, call, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent, admitAsMember } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { simulatedVms } from '#simulator/commands/virsh';
import { findSimJail } from '#simulator/commands/jail-model';
import { freeGuestId } from '../http/jail-setup.ts';
import { freeRids } from '../http/vm-fixtures.ts';

/**
 * `hostmgr jail start|stop|restart` and `hostmgr vm start|stop|restart|poweroff` as an operator runs them:
 * a real CLI process against the suite's stack and an agent on a simulated host. The 'done when' flow: the
 * VM is stopped with hostmgr, E5, E17 and E19 are applied, it is started with hostmgr and runs; the jail is
 * stopped and started by name with its hooks firing on the host.
 */
let config: string;
let agent: TestAgent;
let sim: HostSimulator;
let operator: string;
let rid: number;
let ctid: number;
const suffix = Math.random().toString(36).slice(2, 7);
const jailName = `web01-${suffix}`;
const vmName = `app-${suffix}`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function hostmgr(args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: config, HOSTMGR_URL: apiUrl(), HOSTMGR_TOKEN: operator };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The task a followed command queued (its `…_queued: task N` or `…_updated: task N` line). */
const taskOf = (run: Run) => Number(/_(?:queued|updated): task (\d+)/.exec(run.stdout)?.[1]);
const hostVm = () => sim.state((s) => simulatedVms(s).find((v) => v.rid === rid)!);
const hostJail = () => sim.state((s) => findSimJail(s, jailName)!);

beforeAll(async () => {
  config = mkdtempSync(join(tmpdir(), 'hm-cli-power-'));
  operator = await tokenFor('operator');
  [rid] = await freeRids(1);
  ctid = await freeGuestId();
  const host = testJailHost([
    {
      ctid,
      name: jailName,
      dataset: `zroot/jails/${jailName}`,
      state: 'running',
      hooks: { prestart: { enabled: true, script: 'logger up' }, poststop: { enabled: true, script: 'logger down' } },
    },
  ]);
  agent = await startTestAgent({
    host: {
      ...host,
      profile: 'freebsd-15.0',
      datasets: [...host.datasets, { name: `zroot/vms/${rid}/disk0`, type: 'volume', usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 }],
      vms: [{ rid, name: vmName, state: 'running', zvols: [`zroot/vms/${rid}/disk0`], acpiShutdownSeconds: 1 }],
    },
  });
  await agent.ready();
  // hostmgr resolves guest names among the cluster's members (a pending node's guests are not cluster guests)
  await admitAsMember(agent);
  sim = new HostSimulator({ statePath: agent.statePath });
  await waitUntil(
    'the guests in the store',
    async () => (await testDb().selectFrom('guests').select('id').where('node_id', '=', agent.nodeId).execute()).length === 2,
  );
  await waitUntil(
    'the agent at rest',
    async () =>
      !(await testDb().selectFrom('tasks').select('id').where('node_id', '=', agent.nodeId).where('status', 'in', ['queued', 'running']).executeTakeFirst()),
  );
}, 90_000);

afterAll(async () => {
  await agent?.kill();
  rmSync(config, { recursive: true, force: true });
});

test('hostmgr vm stop, E5/E17/E19 on the shut-off VM, hostmgr vm start: it runs with them', async () => {
  const stop = await hostmgr(['vm', 'stop', vmName]);
  expect({ code: stop.code, stderr: stop.stderr }).toEqual({ code: 0, stderr: '' });
  expect(stop.stdout).toMatch(/^vm_power_queued: task \d+$/m);
  expect(stop.stdout).toMatch(/ended: success/);
  expect((await waitForTask(taskOf(stop), ['success'])).result).toMatchObject({ state: 'shut off', stoppedBy: 'acpi' });
  expect((await hostVm()).state).toBe('shut off');

  // E5, E17, E19 (answered 200 with the task that carries them to the host): followed like the power verbs
  for (const [args, message] of [
    [['vm-options-qemu-guest-agent', vmName, '--enabled', 'true'], 'vm_guest_agent_updated'],
    [
      ['vm-options-cloud-init', String(rid), '--body', JSON.stringify({ data: '#cloud-config\n', metadata: 'instance-id: a\n', networkConfig: '' })],
      'vm_cloud_init_updated',
    ],
  ] as const) {
    const run = await hostmgr([...args]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^${message}: task \\d+$`, 'm'));
    expect(run.stdout).toMatch(/ended: success/);
    expect((await waitForTask(taskOf(run), ['success', 'failed'], 5_000)).status).toBe('success');
  }
  // --detach: the task's id and how to follow it, without waiting
  const vncBody = { vncEnabled: true, vncResolution: '1024x768', vncWait: false, vncPort: 5911 };
  const vnc = await hostmgr(['vm-hardware-vnc', vmName, '--body', JSON.stringify(vncBody), '--detach']);
  expect({ code: vnc.code, stderr: vnc.stderr }).toEqual({ code: 0, stderr: '' });
  expect(vnc.stdout).toMatch(/^vm_vnc_updated: task (\d+); follow it: hostmgr task watch \1$/m);
  expect(vnc.stdout).not.toMatch(/ended:/);
  expect((await waitForTask(taskOf(vnc), ['success', 'failed'], 30_000)).status).toBe('success');

  const start = await hostmgr(['vm', 'start', String(rid)]);
  expect({ code: start.code, stderr: start.stderr }).toEqual({ code: 0, stderr: '' });
  expect(start.stdout).toMatch(/ended: success/);
  expect((await hostVm()).state).toBe('running');
  const view = await call('GET', `/vm/${rid}`, { token: operator });
  expect(view.body.data).toMatchObject({ state: 'running', options: { qemuGuestAgent: true, vnc: { enabled: true, port: 5911 } } });

  // already so: the answer, no task followed
  const again = await hostmgr(['vm', 'start', vmName]);
  expect(again.code).toBe(0);
  expect(again.stdout).not.toMatch(/task \d+/);
  expect(again.stdout).toBe(`VM ${rid} is already running: nothing to do\n`);
});

test('hostmgr vm stop --force powers off at once', async () => {
  const run = await hostmgr(['vm', 'stop', vmName, '--force']);
  expect(run.code).toBe(0);
  const task = await waitForTask(taskOf(run), ['success']);
  expect(task.payload).toMatchObject({ action: 'poweroff' });
  expect(task.result).toMatchObject({ state: 'shut off', stoppedBy: 'forced' });
});

test('hostmgr jail stop / start by name: the hooks fire on the host', async () => {
  const t0 = Date.now();
  const stop = await hostmgr(['jail', 'stop', jailName]);
  expect({ code: stop.code, stderr: stop.stderr }).toEqual({ code: 0, stderr: '' });
  expect((await hostJail()).state).toBe('stopped');
  const start = await hostmgr(['jail', 'start', jailName]);
  expect({ code: start.code, stderr: start.stderr }).toEqual({ code: 0, stderr: '' });
  const jail = await hostJail();
  expect(jail.state).toBe('running');
  const phases = jail.hookRuns!.filter((r) => r.atMs >= t0 && r.command.includes('/hooks/')).map((r) => r.phase);
  expect(phases).toEqual(['poststop', 'prestart']);
  const again = await hostmgr(['jail', 'start', jailName]);
  expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: `jail ${ctid} is already running: nothing to do\n` });
  const restart = await hostmgr(['jail', 'restart', String(ctid), '--json']);
  expect(restart.code).toBe(0);
  expect(JSON.parse(restart.stdout.slice(0, restart.stdout.indexOf('}') + 1))).toMatchObject({ guestId: ctid, action: 'restart', outcome: 'queued' });
});

test('an unknown name and a failing task: exit codes say so', async () => {
  const unknown = await hostmgr(['jail', 'start', `nosuch-${suffix}`]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain(`no jail "nosuch-${suffix}"`);
  // a prestart hook that fails: the task fails, hostmgr exits 3 with jail(8)'s words
  await sim.state((s) => {
    const files = (s as { files?: Record<string, { content: string }> }).files!;
    files[`/usr/local/etc/hostmgr/jails/${ctid}/hooks/prestart.sh`].content = '#!/bin/sh\nexit 7\n';
  });
  const stop = await hostmgr(['jail', 'stop', jailName]);
  expect({ code: stop.code, stderr: stop.stderr }).toEqual({ code: 0, stderr: '' });
  expect((await hostJail()).state).toBe('stopped');
  // the store as the host: an inventory report taken while the stop ran may land after its result
  await waitUntil('the API to hold the jail stopped', async () => (await call('GET', `/jail/${ctid}`)).body.data?.state === 'stopped', 30_000);
  const failed = await hostmgr(['jail', 'start', jailName]);
  // the whole answer when it is not the failed task's (seen once in CI: exit 0, under load)
  expect({ code: failed.code, out: failed.code === 3 ? '' : failed.stdout + failed.stderr }).toEqual({ code: 3, out: '' });
  expect(failed.stdout).toContain(`ended: failed — jail: ${jailName}: /usr/local/etc/hostmgr/jails/${ctid}/hooks/prestart.sh: failed`);
});
