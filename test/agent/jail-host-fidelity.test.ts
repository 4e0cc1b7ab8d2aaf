// @tier fast
import type { SimHost } from '#shared/seed/host/schema';
import { demoSeedHost, jailHost, simulatedHost } from '../helpers/simulated-host.ts';
import { applyHooks, applyLimits, findJail, jailInventory, startJail, stopJail } from '#agent/drivers/jail';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { RACCT_REQUIRED } from '#shared/agent-api/capability-rules';
import { findSimJail } from '#simulator/commands/jail-model';

/**
 * The jail drivers against hosts that behave like FreeBSD 14.3 and 15.0: RACCT off by default, rctl rules
 * per jail name, jail(8) failing on a failing exec command, symbolic links planted inside a jail's root.
 */
const PROFILES = ['freebsd-14.3', 'freebsd-15.0'] as const;
const RACCT_ON = { '/boot/loader.conf': { content: 'kern.racct.enable=1\n', mode: '644' } };
const MASTER_PASSWD = 'root:$6$secret-hash:0:0::0:0:Charlie &:/root:/bin/csh\n';

function host(profile: (typeof PROFILES)[number], jails: SimHost['jails'], opts: { racct?: boolean; cpus?: number } = {}) {
  const seed: SimHost = {
    ...jailHost(jails),
    profile,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    files: { '/etc/master.passwd': { content: MASTER_PASSWD, mode: '600' }, ...(opts.racct ? RACCT_ON : {}) },
  };
  const exec = simulatedHost(seed);
  return { exec, sim: exec.simulator };
}

const web = (over: Partial<NonNullable<SimHost['jails']>[number]> = {}) => ({
  ctid: 101,
  name: 'web',
  dataset: 'zroot/jails/web',
  state: 'running' as const,
  ...over,
});

describe.each(PROFILES)('%s', (profile) => {
  describe('RACCT (kern.racct.enable=0 on GENERIC)', () => {
    test('rctl refuses like rctl.c; with kern.racct.enable=1 in loader.conf it works', async () => {
      const off = host(profile, [web()]);
      expect((await off.sim.run(['sysctl', '-n', 'kern.racct.enable'])).stdout).toBe('0\n');
      const r = await off.sim.run(['rctl', '-a', 'jail:web:memoryuse:deny=1g']);
      expect(r).toMatchObject({ code: 1, stderr: 'rctl: RACCT/RCTL present, but disabled; enable using kern.racct.enable=1 tunable\n' });
      expect((await off.sim.run(['rctl', '-u', 'jail:web'])).code).toBe(1);
      const on = host(profile, [web()], { racct: true });
      expect((await on.sim.run(['rctl', '-a', 'jail:web:memoryuse:deny=1g'])).code).toBe(0);
      expect((await on.sim.run(['rctl'])).stdout).toBe('jail:web:memoryuse:deny=1073741824\n');
    });

    test('a memory limit fails the task with the operator`s instructions, before anything changes', async () => {
      const { exec, sim } = host(profile, [web()]);
      await expect(applyLimits(exec, 101, { cpuSet: [1], memoryBytes: 2 ** 30 }, true)).rejects.toThrow(RACCT_REQUIRED);
      expect((await sim.run(['cat', '/usr/local/etc/hostmgr/jails/101/limits.sh'])).code).toBe(1);
      // a CPU limit alone needs no RACCT
      expect(await applyLimits(exec, 101, { cpuSet: [1], memoryBytes: 0 }, true)).toEqual({ appliedNow: true, cpuSet: [1] });
    });

    test('a jail whose limits ask for memory still starts without RACCT; the reason is on jail(8)`s output', async () => {
      const { exec, sim } = host(profile, [web({ state: 'stopped', cpuSet: [1], memoryBytes: 2 ** 30 })]);
      const j = await findJail(exec, 101);
      const r = await sim.run(['jail', '-f', j.files.conf, '-c', 'web']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('rctl: RACCT/RCTL present, but disabled; enable using kern.racct.enable=1 tunable\n');
      const jail = await sim.state((s) => findSimJail(s, 'web')!);
      expect(jail.state).toBe('running');
      expect(jail.affinity).toEqual([1]);
    });

    test('rctl rules belong to the jail name: they outlive the jail, and a limit removed while it is stopped stays removed', async () => {
      const { exec, sim } = host(profile, [web()], { racct: true });
      await applyLimits(exec, 101, { cpuSet: [], memoryBytes: 2 ** 30 }, true);
      const j = await findJail(exec, 101);
      // stopped behind the agent's back (jail -r, service jail stop): the kernel keeps the rule
      expect((await sim.run(['jail', '-f', j.files.conf, '-r', 'web'])).code).toBe(0);
      expect((await sim.run(['rctl', 'jail:web'])).stdout).toBe('jail:web:memoryuse:deny=1073741824\n');
      // an operator's own rule for the jail (/etc/rctl.conf) is not the agent's to remove
      await sim.run(['rctl', '-a', 'jail:web:maxproc:deny=500']);
      await applyLimits(exec, 101, { cpuSet: [], memoryBytes: 0 }, false);
      await startJail(exec, 'web', j.files.conf);
      expect(await sim.state((s) => s.rctlRules ?? [])).toEqual(['jail:web:maxproc:deny=500']);
      await stopJail(exec, 'web', j.files.conf);
      expect(await sim.state((s) => s.rctlRules ?? [])).toEqual(['jail:web:maxproc:deny=500']);
    });
  });

  describe('jail(8): all commands must succeed', () => {
    test('a failing prestart hook: not created; a failing poststart hook: created, then removed; exit 1 with jail(8)`s words', async () => {
      const { exec, sim } = host(profile, [web({ state: 'stopped' })]);
      await applyHooks(exec, 101, { ...noHooks(), prestart: { enabled: true, script: 'exit 3' } });
      const j = await findJail(exec, 101);
      const pre = await sim.run(['jail', '-f', j.files.conf, '-c', 'web']);
      expect(pre).toMatchObject({ code: 1, stdout: '', stderr: 'jail: web: /usr/local/etc/hostmgr/jails/101/hooks/prestart.sh: failed\n' });
      await expect(startJail(exec, 'web', j.files.conf)).rejects.toThrow(/prestart\.sh: failed/);
      expect(await sim.state((s) => findSimJail(s, 'web')!.state)).toBe('stopped');

      await applyHooks(exec, 101, { ...noHooks(), poststart: { enabled: true, script: 'false' } });
      const post = await sim.run(['jail', '-f', j.files.conf, '-c', 'web']);
      expect(post).toMatchObject({
        code: 1,
        stdout: 'web: created\nweb: removed\n',
        stderr: 'jail: web: /usr/local/etc/hostmgr/jails/101/hooks/poststart.sh: failed\n',
      });
      expect(await sim.state((s) => findSimJail(s, 'web')!.state)).toBe('stopped');
    });

    test('a failing prestop hook leaves the jail running; a missing hook file is an exec error', async () => {
      const { exec, sim } = host(profile, [web()]);
      await applyHooks(exec, 101, { ...noHooks(), prestop: { enabled: true, script: 'echo busy >&2\nexit 1' } });
      const j = await findJail(exec, 101);
      await expect(stopJail(exec, 'web', j.files.conf)).rejects.toThrow(/jail: web: \/usr\/local\/etc\/hostmgr\/jails\/101\/hooks\/prestop\.sh: failed/);
      expect(await sim.state((s) => findSimJail(s, 'web')!.state)).toBe('running');
      await sim.run(['rm', '-f', '/usr/local/etc/hostmgr/jails/101/hooks/prestop.sh']);
      const r = await sim.run(['jail', '-f', j.files.conf, '-r', 'web']);
      expect(r.stderr).toBe(
        'jail: web: exec /usr/local/etc/hostmgr/jails/101/hooks/prestop.sh: No such file or directory\njail: web: /usr/local/etc/hostmgr/jails/101/hooks/prestop.sh: failed\n',
      );
    });

    test('the start hook runs inside the jail: its paths resolve below the jail`s root', async () => {
      const { exec, sim } = host(profile, [web({ state: 'stopped' })]);
      await sim.run(['mkdir', '-p', '/zroot/jails/web/etc']);
      await sim.run(['tee', '/zroot/jails/web/etc/check.sh'], 'exit 4\n');
      await applyHooks(exec, 101, { ...noHooks(), start: { enabled: true, script: 'sh /etc/check.sh' } });
      const j = await findJail(exec, 101);
      const r = await sim.run(['jail', '-f', j.files.conf, '-c', 'web']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('jail: web: /bin/sh -c /usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/start.sh: failed\n');
    });
  });

  describe('hooks never go through a jail`s root (a root user inside can plant symbolic links there)', () => {
    for (const plant of ['file', 'directory'] as const) {
      test(`a ${plant} link to the host's /etc inside the jail: nothing leaks into the inventory, nothing is written through it`, async () => {
        const { exec, sim } = host(profile, [web({ hooks: { start: { enabled: true, script: 'echo hi' } } })]);
        const inJail = '/zroot/jails/web/usr/local/etc/hostmgr/hooks';
        await sim.run(['rm', '-rf', inJail]);
        await sim.run(['mkdir', '-p', '/zroot/jails/web/usr/local/etc/hostmgr']);
        if (plant === 'directory') await sim.run(['ln', '-s', '/etc', inJail]);
        else {
          await sim.run(['mkdir', '-p', inJail]);
          for (const p of ['start', 'stop']) await sim.run(['ln', '-s', '/etc/master.passwd', `${inJail}/${p}.sh`]);
        }
        // the plant works as on FreeBSD: through the link, the host file is readable
        expect((await sim.run(['cat', `${inJail}/${plant === 'file' ? 'start.sh' : 'master.passwd'}`])).stdout).toBe(MASTER_PASSWD);

        const inv = (await jailInventory(exec)).find((x) => x.ctid === 101)!;
        expect(JSON.stringify(inv.hooks)).not.toContain('secret-hash');
        expect(inv.hooks.start).toEqual({ enabled: true, script: 'echo hi' });
        await applyHooks(exec, 101, { ...noHooks(), start: { enabled: true, script: 'echo pwned' }, stop: { enabled: true, script: 'echo bye' } });
        await applyHooks(exec, 101, noHooks());
        expect((await sim.run(['cat', '/etc/master.passwd'])).stdout).toBe(MASTER_PASSWD);
        expect((await sim.run(['stat', '-f', '%HT', '/etc/master.passwd'])).stdout).toBe('Regular File\n');
        expect(await sim.state((s) => s.files!['/etc/master.passwd'].mode)).toBe('600');
        expect(Object.keys(await sim.state((s) => s.files!)).filter((f) => f.startsWith('/etc/') && f.endsWith('.sh'))).toEqual([]);
      });
    }
  });

  describe('CPU lists and the host`s CPUs', () => {
    test('a limits script naming CPUs this host lacks (migrated from a bigger host) is fitted before the start', async () => {
      const { exec, sim } = host(profile, [web({ state: 'stopped', cpuSet: [6, 7] })], { cpus: 4 });
      const j = await findJail(exec, 101);
      await startJail(exec, 'web', j.files.conf);
      expect(await sim.state((s) => findSimJail(s, 'web')!.affinity)).toEqual([0, 1]);
      expect((await sim.run(['cat', j.files.limits])).stdout).toContain('cpuset -l 0,1 -j web || exit 1\n');
      expect(await applyLimits(exec, 101, { cpuSet: [2, 5], memoryBytes: 0 }, true)).toEqual({ appliedNow: true, cpuSet: [0, 2] });
    });

    test('a cpuset that fails at start stops the jail from starting rather than running it on every CPU', async () => {
      const { exec, sim } = host(profile, [web({ state: 'stopped', cpuSet: [6, 7] })], { cpus: 4 });
      const j = await findJail(exec, 101);
      const r = await sim.run(['jail', '-f', j.files.conf, '-c', 'web']);
      expect(r).toMatchObject({ code: 1, stdout: 'web: created\nweb: removed\n' });
      expect(r.stderr).toBe('cpuset: setaffinity: Invalid argument\njail: web: /usr/local/etc/hostmgr/jails/101/limits.sh: failed\n');
      expect(await sim.state((s) => findSimJail(s, 'web')!.state)).toBe('stopped');
    });
  });

  describe('a reboot', () => {
    test('jails are gone with their rctl rules; rc.d/jail starts the jail_list jails from jail.conf.d when jail_enable=YES', async () => {
      const { exec, sim } = host(profile, [web({ memoryBytes: 2 ** 30 }), { ctid: 102, name: 'db', dataset: 'zroot/jails/db', state: 'running' }], {
        racct: true,
      });
      expect((await sim.run(['rctl'])).stdout).toBe('jail:web:memoryuse:deny=1073741824\n');
      expect((await sim.run(['reboot'])).code).toBe(0);
      expect((await jailInventory(exec)).map((j) => j.state)).toEqual(['stopped', 'stopped']);
      expect((await sim.run(['rctl'])).stdout).toBe('');
      await sim.run(['tee', '/etc/rc.conf'], 'jail_enable="YES"\njail_list="web"\n');
      await sim.run(['reboot']);
      expect((await jailInventory(exec)).map((j) => [j.name, j.state])).toEqual([
        ['web', 'running'],
        ['db', 'stopped'],
      ]);
      expect((await sim.run(['rctl'])).stdout).toBe('jail:web:memoryuse:deny=1073741824\n');
    });
  });
});

test('the demo host, whose jails have memory limits, boots with RACCT on (its loader.conf), so their limits apply', async () => {
  const seed = demoSeedHost();
  const exec = simulatedHost(seed);
  const limited = (seed.jails ?? []).filter((j) => (j.memoryBytes ?? 0) > 0);
  expect(limited.length).toBeGreaterThan(0);
  expect((await exec.simulator.run(['sysctl', '-n', 'kern.racct.enable'])).stdout).toBe('1\n');
  for (const j of limited) {
    expect(await applyLimits(exec, j.ctid, { cpuSet: j.cpuSet ?? [], memoryBytes: j.memoryBytes! }, true)).toMatchObject({ appliedNow: j.state === 'running' });
  }
  expect((await exec.simulator.run(['rctl'])).stdout.split('\n').filter(Boolean)).toHaveLength(limited.length);
});
