import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { LOGIN_PATH } from '#simulator/profiles';
import { simulatedVms } from '#simulator/commands/virsh';
import { findSimJail } from '#simulator/commands/jail-model';
import { DomainXml } from '#agent/drivers/domain-xml';
import { hasCdrom, readGuestAgent, readVnc } from '#agent/drivers/domain-xml-options';
import { freeGuestId } from '../http/jail-setup.ts';
import { freeRids } from '../http/vm-fixtures.ts';

/**
 * Guest power end to end: HTTP → store + task → queue → agent → simulated host (jail -c/-r with the E3 hooks
 * and E4 limits; virsh start/shutdown/destroy on libvirt 12.4's bhyve driver) → task result → store. The
 * 'done when' flow: a running VM is stopped, E5, E17 and E19 (which need it shut off) are applied, and it is
 * started again with them; a jail is stopped and started with its hooks firing.
 */
let agent: TestAgent;
let sim: HostSimulator;
let operator: string;
let vm: number, stubborn: number, spare: number;
let web: number, broken: number;

const power = (what: 'jail' | 'vm', id: number, action: string) => call('POST', `/${what}/${id}/power`, { body: { action }, token: operator });
const state = async (id: number) => (await testDb().selectFrom('guests').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
const hostVm = (rid: number) => sim.state((s) => simulatedVms(s).find((v) => v.rid === rid)!);
const hostJail = (name: string) => sim.state((s) => findSimJail(s, name)!);
const hostXml = async (rid: number) => DomainXml.parse((await sim.run(['virsh', 'dumpxml', '--security-info', (await hostVm(rid)).uuid!])).stdout);

/** Runs a power request to its task's end; returns the task. */
async function act(what: 'jail' | 'vm', id: number, action: string, end: 'success' | 'failed' = 'success') {
  const res = await power(what, id, action);
  expectEnvelope(res, 202, `${what}_power_queued`);
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed', 'cancelled', 'interrupted'], 30_000);
  expect({ action, status: task.status, error: end === 'success' ? task.error : '' }).toEqual({ action, status: end, error: '' });
  return task;
}

beforeAll(async () => {
  operator = await tokenFor('operator');
  [vm, stubborn, spare] = await freeRids(3);
  web = await freeGuestId();
  broken = await freeGuestId();
  const zvol = (rid: number) => `zroot/vms/${rid}/disk0`;
  const host = testJailHost([
    {
      ctid: web,
      name: 'web',
      dataset: 'zroot/jails/web',
      state: 'running',
      cpuSet: [1, 2],
      hooks: {
        prestart: { enabled: true, script: 'logger web prestart' },
        poststart: { enabled: true, script: 'logger web poststart' },
        prestop: { enabled: true, script: 'logger web prestop' },
        poststop: { enabled: true, script: 'logger web poststop' },
      },
    },
    { ctid: broken, name: 'broken', dataset: 'zroot/jails/broken', state: 'stopped', hooks: { prestart: { enabled: true, script: 'exit 3' } } },
  ]);
  agent = await startTestAgent({
    host: {
      ...host,
      // E5's guest agent channel needs libvirt 12.4 (on 14.3's libvirt 11 it is refused with 409)
      profile: 'freebsd-15.0',
      datasets: [
        ...host.datasets,
        ...[vm, stubborn, spare].map((rid) => ({ name: zvol(rid), type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 })),
      ],
      vms: [
        { rid: vm, name: 'app', state: 'running', zvols: [zvol(vm)], acpiShutdownSeconds: 1 },
        // a guest that ignores the ACPI power button: only the forced path stops it
        { rid: stubborn, name: 'stubborn', state: 'running', zvols: [zvol(stubborn)], acpi: 'ignores', shutdownWaitTime: 1 },
        { rid: spare, name: 'spare', state: 'running', zvols: [zvol(spare)], acpi: 'ignores' },
      ],
    },
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath, path: LOGIN_PATH });
  await waitUntil(
    'the guests in the store',
    async () => (await testDb().selectFrom('guests').select('id').where('node_id', '=', agent.nodeId).execute()).length === 5,
    30_000,
  );
  // the agent's start-up re-application of persisted configuration is done first
  await waitUntil(
    'the agent at rest',
    async () =>
      !(await testDb().selectFrom('tasks').select('id').where('node_id', '=', agent.nodeId).where('status', 'in', ['queued', 'running']).executeTakeFirst()),
    30_000,
  );
}, 90_000);

afterAll(async () => {
  await agent?.kill();
});

describe('a VM: stop, the shut-off options, start', () => {
  test('stop: the guest takes the ACPI button and powers off; the task says so; the store follows', async () => {
    const task = await act('vm', vm, 'stop');
    expect(task.result).toEqual({ rid: vm, action: 'stop', state: 'shut off', changed: true, stoppedBy: 'acpi' });
    expect((await hostVm(vm)).state).toBe('shut off');
    expect(await state(vm)).toBe('shut off');
    // already so: 200, no task
    expectEnvelope(await power('vm', vm, 'stop'), 200, 'vm_already_shut_off');
  });

  test('E5, E17 and E19 apply to the shut-off VM', async () => {
    const put = (path: string, body: unknown) => call('PUT', `/vm/${vm}/${path}`, { body, token: operator });
    for (const [path, body, message] of [
      ['options/qemu-guest-agent', { enabled: true }, 'vm_guest_agent_updated'],
      ['options/cloud-init', { data: '#cloud-config\nhostname: app\n', metadata: 'instance-id: app\n', networkConfig: '' }, 'vm_cloud_init_updated'],
      ['hardware/vnc', { vncEnabled: true, vncResolution: '1280x720', vncWait: false, vncPort: 5907 }, 'vm_vnc_updated'],
    ] as const) {
      const res = await put(path, body);
      expectEnvelope(res, 200, message);
      const t = await waitForTask(res.body.data.taskId, ['success', 'failed'], 30_000);
      expect({ path, status: t.status, error: t.error }).toEqual({ path, status: 'success', error: '' });
    }
  });

  test('start: the VM runs with what E5, E17 and E19 defined', async () => {
    const task = await act('vm', vm, 'start');
    expect(task.result).toEqual({ rid: vm, action: 'start', state: 'running', changed: true, stoppedBy: null });
    const onHost = await hostVm(vm);
    expect(onHost.state).toBe('running');
    expect(onHost.id).toBeGreaterThan(0);
    const xml = await hostXml(vm);
    expect(readGuestAgent(xml)).toBe(true);
    expect(hasCdrom(xml, `/var/db/hostmgr/vms/${vm}/cloud-init.iso`)).toBe(true);
    expect(readVnc(xml)).toMatchObject({ enabled: true, port: 5907, resolution: '1280x720' });
    await waitUntil('the store to say running', async () => (await state(vm)) === 'running');
    expectEnvelope(await power('vm', vm, 'start'), 200, 'vm_already_running');
  });

  test('restart: stopped through ACPI, then started again', async () => {
    const task = await act('vm', vm, 'restart');
    expect(task.result).toEqual({ rid: vm, action: 'restart', state: 'running', changed: true, stoppedBy: 'acpi' });
    const uuid = (await hostVm(vm)).uuid!;
    expect(task.output).toContain(`virsh shutdown ${uuid}\nvirsh start ${uuid}`);
    expect((await hostVm(vm)).state).toBe('running');
  });
});

describe('a VM that ignores ACPI', () => {
  test('stop: destroyed once E6’s wait time passed, and the task says it was forced', async () => {
    const task = await act('vm', stubborn, 'stop');
    expect(task.result).toEqual({ rid: stubborn, action: 'stop', state: 'shut off', changed: true, stoppedBy: 'forced' });
    expect(task.output).toContain('did not power off within 1 s');
    expect((await hostVm(stubborn)).state).toBe('shut off');
  });

  test('poweroff: destroyed at once, whatever the guest does', async () => {
    const task = await act('vm', spare, 'poweroff');
    expect(task.result).toEqual({ rid: spare, action: 'poweroff', state: 'shut off', changed: true, stoppedBy: 'forced' });
    expect((await hostVm(spare)).state).toBe('shut off');
  });

  test('cancelled while waiting for the guest: the VM runs on and the task ends cancelled', async () => {
    // the default wait (30 s) leaves time to cancel
    const start = await act('vm', spare, 'start');
    expect(start.result).toMatchObject({ state: 'running' });
    const res = await power('vm', spare, 'stop');
    expectEnvelope(res, 202, 'vm_power_queued');
    const id = res.body.data.taskId;
    await waitUntil('the wait', async () =>
      (await testDb().selectFrom('tasks').select('phase').where('id', '=', id).executeTakeFirstOrThrow()).phase.startsWith('waiting'),
    );
    expectEnvelope(await call('POST', `/tasks/${id}/cancel`, { token: operator }), 202, 'task_cancel_requested');
    const t = await waitForTask(id, ['success', 'failed', 'cancelled', 'interrupted'], 30_000);
    expect(t.status).toBe('cancelled');
    expect((await hostVm(spare)).state).toBe('running');
  });
});

describe('a jail: stop and start with its hooks', () => {
  const phasesSince = async (t0: number) => (await hostJail('web')).hookRuns!.filter((r) => r.atMs >= t0).map((r) => `${r.phase} ${r.command}`);

  test('stop: exec.prestop and exec.poststop run (the E3 hooks); the jail is gone from the kernel', async () => {
    const t0 = Date.now();
    const task = await act('jail', web, 'stop');
    expect(task.result).toEqual({ ctid: web, action: 'stop', state: 'stopped', changed: true });
    const jail = await hostJail('web');
    expect(jail.state).toBe('stopped');
    expect(jail.jid).toBeUndefined();
    const runs = await phasesSince(t0);
    // exec.stop is the conf's own /etc/rc.shutdown in the jail
    expect(runs).toEqual([
      `prestop /usr/local/etc/hostmgr/jails/${web}/hooks/prestop.sh`,
      'stop /bin/sh /etc/rc.shutdown',
      `poststop /usr/local/etc/hostmgr/jails/${web}/hooks/poststop.sh`,
    ]);
    expect(await state(web)).toBe('stopped');
    expectEnvelope(await power('jail', web, 'stop'), 200, 'jail_already_stopped');
  });

  test('start: exec.prestart, then poststart with the limits script (E4: pinned to its CPUs) and the hook', async () => {
    const t0 = Date.now();
    const task = await act('jail', web, 'start');
    expect(task.result).toEqual({ ctid: web, action: 'start', state: 'running', changed: true });
    const jail = await hostJail('web');
    expect(jail.state).toBe('running');
    expect(jail.affinity).toEqual([1, 2]);
    const runs = await phasesSince(t0);
    expect(runs[0]).toBe(`prestart /usr/local/etc/hostmgr/jails/${web}/hooks/prestart.sh`);
    expect(runs.filter((r) => r.startsWith('poststart '))).toEqual(
      expect.arrayContaining([`poststart /usr/local/etc/hostmgr/jails/${web}/limits.sh`, `poststart /usr/local/etc/hostmgr/jails/${web}/hooks/poststart.sh`]),
    );
    await waitUntil('the store to say running', async () => (await state(web)) === 'running');
  });

  test('restart: the four hooks in jail(8)’s order, and a new jid', async () => {
    const jid = (await hostJail('web')).jid;
    const t0 = Date.now();
    await act('jail', web, 'restart');
    const runs = (await phasesSince(t0)).map((r) => r.split(' ')[0]);
    expect(runs).toEqual(['prestop', 'stop', 'poststop', 'prestart', 'start', 'poststart', 'poststart']);
    expect((await hostJail('web')).jid).not.toBe(jid);
  });

  test('a failing prestart hook fails the task with jail(8)’s words; the jail stays stopped', async () => {
    const task = await act('jail', broken, 'start', 'failed');
    expect(task.error).toContain(`jail: broken: /usr/local/etc/hostmgr/jails/${broken}/hooks/prestart.sh: failed`);
    expect((await hostJail('broken'))?.state ?? 'stopped').toBe('stopped');
    expect(await state(broken)).toBe('stopped');
  });
});
