import { PROFILE_IDS } from '#simulator/profiles';
import { simulatedVms } from '#simulator/commands/virsh';
import { findSimJail } from '#simulator/commands/jail-model';
import type { SimHost } from '#shared/seed/host/schema';
import { host, simulate } from './sim-helper.ts';

/**
 * The simulator's power commands against their sources: virsh shutdown/reboot/destroy/start on libvirt's bhyve
 * driver (bhyve_driver.c, bhyve_process.c virBhyveProcessShutdown: SIGTERM = the ACPI power button, pm.c), on
 * both host profiles; jail(8)'s jid allocation (kern_jail.c lastprid); `service jail` (rc.d/jail).
 */
const UUID = '6f1c2a34-0d5e-4b7f-9a21-3c4d5e6f7a80';
const STUBBORN = '6f1c2a34-0d5e-4b7f-9a21-3c4d5e6f7a81';
const vmHost = (profile: string): SimHost =>
  host({
    profile,
    vms: [
      { rid: 7, name: 'app', state: 'running', uuid: UUID, acpiShutdownSeconds: 3 },
      { rid: 8, name: 'stubborn', state: 'running', uuid: STUBBORN, acpi: 'ignores' },
    ],
  } as Partial<SimHost>);

const virsh = (...args: string[]) => ['virsh', '-c', 'bhyve:///system', ...args];

describe.each(PROFILE_IDS.map((p) => [p]))('virsh power on %s', (profile) => {
  test('shutdown presses the button: running until the guest powers off, then shut off', async () => {
    const h = simulate(vmHost(profile));
    expect(await h.exec.run(virsh('shutdown', UUID))).toEqual({ code: 0, stdout: "Domain '7' is being shutdown\n\n", stderr: '' });
    expect((await h.exec.run(virsh('domstate', UUID))).stdout).toBe('running\n\n');
    h.advance(2_999);
    expect((await h.exec.run(virsh('domstate', UUID))).stdout).toBe('running\n\n');
    h.advance(1);
    expect((await h.exec.run(virsh('domstate', UUID))).stdout).toBe('shut off\n\n');
    // a stopped domain: virDomainObjCheckActive
    expect(await h.exec.run(virsh('shutdown', UUID))).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: Failed to shutdown domain '7'\nerror: Requested operation is not valid: domain is not running\n",
    });
  });

  test('a guest that ignores the button runs on; destroy stops it at once', async () => {
    const h = simulate(vmHost(profile));
    await h.exec.run(virsh('shutdown', STUBBORN));
    h.advance(3_600_000);
    expect((await h.exec.run(virsh('domstate', STUBBORN))).stdout).toBe('running\n\n');
    expect(await h.exec.run(virsh('destroy', STUBBORN))).toEqual({ code: 0, stdout: "Domain '8' destroyed\n\n", stderr: '' });
    expect((await h.exec.run(virsh('domstate', STUBBORN))).stdout).toBe('shut off\n\n');
    expect((await h.exec.run(virsh('destroy', STUBBORN))).stderr).toBe(
      "error: Failed to destroy domain '8'\nerror: Requested operation is not valid: domain is not running\n",
    );
  });

  test('reboot: the guest powers off and libvirt starts it again with a new bhyve process; ignored, nothing happens', async () => {
    const h = simulate(vmHost(profile));
    const sim = h.exec.simulator;
    await h.exec.run(virsh('list', '--all'));
    const pid = async (rid: number) => sim.state((s) => simulatedVms(s).find((v) => v.rid === rid)!.id);
    const before = await pid(7);
    expect(await h.exec.run(virsh('reboot', UUID))).toEqual({ code: 0, stdout: "Domain '7' is being rebooted\n\n", stderr: '' });
    h.advance(3_000);
    expect((await h.exec.run(virsh('domstate', UUID))).stdout).toBe('running\n\n');
    expect(await pid(7)).toBeGreaterThan(before!);
    const stubborn = await pid(8);
    await h.exec.run(virsh('reboot', STUBBORN));
    h.advance(60_000);
    expect(await pid(8)).toBe(stubborn);
  });

  test('start after a stop: running again; start of a running domain is refused', async () => {
    const h = simulate(vmHost(profile));
    await h.exec.run(virsh('destroy', UUID));
    expect(await h.exec.run(virsh('start', UUID))).toEqual({ code: 0, stdout: "Domain '7' started\n\n", stderr: '' });
    expect((await h.exec.run(virsh('start', UUID))).stderr).toBe(
      "error: Failed to start domain '7'\nerror: Requested operation is not valid: domain is already running\n",
    );
  });
});

describe('jails: jids and service jail', () => {
  const jailHost = (rc = '') =>
    host({
      files: { '/etc/rc.conf': { content: rc, mode: '644' } },
      jails: [{ ctid: 5, name: 'web', path: '/jails/web', state: 'running' }],
    } as Partial<SimHost>);
  const conf = '/etc/jail.conf.d/web.conf';

  test('a jail removed and created again gets the next jid (kern_jail.c: lastprid + 1), not its old one', async () => {
    const h = simulate(jailHost());
    const sim = h.exec.simulator;
    await h.exec.run(['jls']);
    const jid = await sim.state((s) => findSimJail(s, 'web')!.jid!);
    expect((await h.exec.run(['jail', '-f', conf, '-r', 'web'])).code).toBe(0);
    expect((await h.exec.run(['jail', '-f', conf, '-c', 'web'])).code).toBe(0);
    expect(await sim.state((s) => findSimJail(s, 'web')!.jid)).toBe(jid + 1);
  });

  test('service jail stop/start without jail_enable: refused on stdout, exit 0; onestop/onestart act', async () => {
    const h = simulate(jailHost());
    expect(await h.exec.run(['service', 'jail', 'stop', 'web'])).toEqual({
      code: 0,
      stdout: "Cannot 'stop' jail. Set jail_enable to YES in /etc/rc.conf or use 'onestop' instead of 'stop'.\n",
      stderr: '',
    });
    expect(await h.exec.run(['service', 'jail', 'onestop', 'web'])).toEqual({ code: 0, stdout: 'Stopping jails: web.\n', stderr: '' });
    // a stopped jail is skipped by name
    expect(await h.exec.run(['service', 'jail', 'onestop', 'web'])).toEqual({ code: 0, stdout: 'Stopping jails:.\n', stderr: '' });
    expect(await h.exec.run(['service', 'jail', 'onestart', 'web'])).toEqual({ code: 0, stdout: 'Starting jails: web.\n', stderr: '' });
  });

  test('service jail start: a jail that fails to start is printed, and the exit status is still 0', async () => {
    const h = simulate(jailHost('jail_enable="YES"\n'));
    await h.exec.run(['jls']);
    await h.exec.run(['service', 'jail', 'stop', 'web']);
    const sim = h.exec.simulator;
    await sim.state((s) => {
      const files = (s as { files?: Record<string, { content: string }> }).files!;
      files[conf].content = files[conf].content.replace(/\}\s*$/, '  exec.prestart += "exit 3;";\n}\n');
    });
    const r = await h.exec.run(['service', 'jail', 'start', 'web']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Starting jails: cannot start jail  "web": \njail: web: /bin/sh -c exit 3;: failed\n.\n');
    expect(await sim.state((s) => findSimJail(s, 'web')?.state ?? 'stopped')).toBe('stopped');
  });
});
