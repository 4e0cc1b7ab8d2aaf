// @tier fast
import { host, simulate } from '../unit/simulator/sim-helper.ts';
import { installCtlConf } from '#agent/drivers/ctld';
import type { Executor, RunResult } from '#agent/executors/executor';
import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * The agent's ctl.conf installation against simulated FreeBSD 14.3 and 15.0 hosts: check, install, start or
 * reload, confirmation with ctladm, ctld_enable for the next boot.
 */
const zvols = (...names: string[]): SimHost['datasets'] => names.map((name) => ({ name, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 30 }));
const configWith = (...luns: string[]): IscsiConfig => ({
  portalGroups: [{ name: 'pg0', discoveryAuthGroup: 'no-authentication', listen: ['0.0.0.0:3260'] }],
  targets: [
    {
      name: 'iqn.2026-01.org.example:disks',
      alias: '',
      authGroup: 'no-authentication',
      portalGroup: 'pg0',
      luns: luns.map((zvol, number) => ({ number, zvol })),
    },
  ],
});
const fast = { verifyAttempts: 2, verifyDelayMs: 10 };
const profiles = ['freebsd-14.3', 'freebsd-15.0'] as const;

/** An executor that answers some commands itself (a host the simulator does not model), the rest from the simulator */
function answering(exec: Executor, answers: (argv: string[]) => RunResult | undefined): Executor & { calls: string[][] } {
  const calls: string[][] = [];
  return { kind: 'simulator', calls, run: async (argv, opts) => (calls.push(argv), answers(argv) ?? exec.run(argv, opts)) };
}

describe.each(profiles)('%s', (profile) => {
  test('installs, starts ctld, confirms the LUNs with ctladm, enables ctld at boot — and a reboot serves them again', async () => {
    const h = simulate(host({ profile, datasets: zvols('tank/v0', 'tank/v1') }));
    expect(await installCtlConf(h.exec, configWith('tank/v0'), '1', fast)).toEqual({ action: 'onestart', check: 'ctld -t' });
    expect(await installCtlConf(h.exec, configWith('tank/v0', 'tank/v1'), '2', fast)).toEqual({ action: 'onereload', check: 'ctld -t' });
    expect((await h.exec.run(['sysrc', '-n', 'ctld_enable'])).stdout).toBe('YES\n');
    await h.exec.run(['reboot']);
    expect((await h.exec.run(['ctladm', 'portlist', '-f', 'iscsi', '-l', '-q'])).stdout).toBe(
      '2    YES    iscsi    iscsi    257 1  iqn.2026-01.org.example:disks,t,0x0101\n  LUN 0: 0\n  LUN 1: 1\n',
    );
  });

  test('a reload ctld cannot apply (the zvol is gone) fails with what is not served, though `service` exited 0', async () => {
    const h = simulate(host({ profile, datasets: zvols('tank/v0') }));
    await installCtlConf(h.exec, configWith('tank/v0'), '1', fast);
    const before = (await h.exec.run(['cat', '/etc/ctl.conf'])).stdout;
    await expect(installCtlConf(h.exec, configWith('tank/v0', 'tank/gone'), '2', fast)).rejects.toThrow(
      'ctld did not apply /etc/ctl.conf (service ctld onereload returned 0): not served: target iqn.2026-01.org.example:disks LUN 1 (/dev/zvol/tank/gone). ctld logs the reason to syslog (/var/log/messages); the previous /etc/ctl.conf is back in place.',
    );
    // the file says what ctld serves, so a reboot serves LUN 0 again instead of failing on LUN 1
    expect((await h.exec.run(['cat', '/etc/ctl.conf'])).stdout).toBe(before);
    await h.exec.run(['reboot']);
    expect((await h.exec.run(['ctladm', 'portlist', '-f', 'iscsi', '-l', '-q'])).stdout).toBe(
      '2    YES    iscsi    iscsi    257 1  iqn.2026-01.org.example:disks,t,0x0101\n  LUN 0: 0\n',
    );
  });
});

test('freebsd-14.3: ctld applies before daemonizing, so `service ctld onestart` itself fails with ctld’s messages', async () => {
  const h = simulate(host({ profile: 'freebsd-14.3', datasets: zvols('tank/v0') }));
  await expect(installCtlConf(h.exec, configWith('tank/v0', 'tank/gone'), '1', fast)).rejects.toThrow(
    /failed to add lun "iqn.2026-01.org.example:disks,lun,1"\nctld: failed to apply configuration; exiting/,
  );
  expect((await h.exec.run(['cat', '/etc/ctl.conf'])).code).toBe(1);
  expect((await h.exec.run(['sysrc', '-n', 'ctld_enable'])).code).toBe(0);
  expect((await h.exec.run(['sysrc', '-n', 'ctld_enable'])).stdout).toBe('NO\n');
});

test('freebsd-15.0: `service ctld onestart` exits 0 although ctld exits after daemonizing; ctladm shows it, the install fails', async () => {
  const h = simulate(host({ profile: 'freebsd-15.0', datasets: zvols('tank/v0') }));
  await expect(installCtlConf(h.exec, configWith('tank/v0', 'tank/gone'), '1', fast)).rejects.toThrow(
    'ctld did not apply /etc/ctl.conf (service ctld onestart returned 0): not served: target iqn.2026-01.org.example:disks LUN 1 (/dev/zvol/tank/gone); ctld is not running. ctld logs the reason to syslog (/var/log/messages); the previous /etc/ctl.conf is back in place.',
  );
  expect((await h.exec.run(['cat', '/etc/ctl.conf'])).code).toBe(1);
  // not enabled for the next boot either
  expect((await h.exec.run(['sysrc', '-n', 'ctld_enable'])).stdout).toBe('NO\n');
});

test('a host whose ctld has no -t (older than CTLD_CHECK_FLAG_SINCE): checked by the agent’s reading of ctld’s grammar', async () => {
  const h = simulate(host({ datasets: zvols('tank/v0') }));
  const old = answering(h.exec, (argv) =>
    argv.join(' ') === 'sysctl -q kern.osreldate' ? { code: 0, stdout: 'kern.osreldate: 1204000\n', stderr: '' } : undefined,
  );
  expect(await installCtlConf(old, configWith('tank/v0'), '1', fast)).toEqual({ action: 'onestart', check: 'hostmgr' });
  expect(old.calls.some((a) => a[0] === 'ctld')).toBe(false);
  // a second target naming an auth-group ctl.conf does not define: appended to the file, refused by the check
  const base = configWith('tank/v0');
  const refused = { ...base, targets: [...base.targets, { ...base.targets[0], name: 'iqn.2026-01.org.example:chap', authGroup: 'chap-users', luns: [] }] };
  await expect(installCtlConf(old, refused, '2', fast)).rejects.toThrow(
    'ctld: unknown auth-group "chap-users" for target "iqn.2026-01.org.example:chap"\nctld: configuration error; exiting',
  );
  expect((await h.exec.run(['ls', '/etc'])).stdout).not.toMatch(/ctl\.conf\.hostmgr/);
  // a target of hostmgr's name that the file defines otherwise is not rewritten: the task fails naming it
  const changed = { ...base, targets: [{ ...base.targets[0], authGroup: 'no-access' }] };
  await expect(installCtlConf(old, changed, '3', fast)).rejects.toThrow(
    /^\/etc\/ctl.conf line \d+: target "iqn.2026-01.org.example:disks" has auth-group no-authentication, hostmgr's target has no-access/,
  );
});

test('ctld_flags with -f another file: the task fails naming it, and /etc/ctl.conf is not written', async () => {
  const h = simulate(host({ datasets: zvols('tank/v0'), files: { '/etc/rc.conf': { content: 'ctld_flags="-f /usr/local/etc/ctl.conf"\n', mode: '0644' } } }));
  await expect(installCtlConf(h.exec, configWith('tank/v0'), '1', fast)).rejects.toThrow(
    'ctld_flags="-f /usr/local/etc/ctl.conf" in /etc/rc.conf makes ctld read /usr/local/etc/ctl.conf (-f), not /etc/ctl.conf, which hostmgr manages',
  );
  expect((await h.exec.run(['cat', '/etc/ctl.conf'])).code).toBe(1);
});

test('a ctld that answers -t with its usage: the agent falls back to its own check', async () => {
  const h = simulate(host({ datasets: zvols('tank/v0') }));
  const usage = 'ctld: illegal option -- t\nusage: ctld [-d][-u][-f config-file]\n';
  const old = answering(h.exec, (argv) => (argv[0] === 'ctld' && argv[1] === '-t' ? { code: 1, stdout: '', stderr: usage } : undefined));
  expect(await installCtlConf(old, configWith('tank/v0'), '1', fast)).toEqual({ action: 'onestart', check: 'hostmgr' });
});
