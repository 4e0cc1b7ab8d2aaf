// @tier fast
import type { SimHost } from '#shared/seed/host/schema';
import { jailHost, simulatedHost } from '../helpers/simulated-host.ts';
import { applyHooks, applyLimits, findJail, jailInventory, startJail, stopJail } from '#agent/drivers/jail';
import { listRunningJails } from '#agent/drivers/jls';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { findSimJail } from '#simulator/commands/jail-model';
import { fixture } from '../helpers/fixtures.ts';

/** A jail host; `racct` puts kern.racct.enable=1 in its loader.conf (GENERIC's default is 0). */
function simulated(jails: SimHost['jails'], racct = false) {
  const exec = simulatedHost({ ...jailHost(jails), ...(racct ? { files: { '/boot/loader.conf': { content: 'kern.racct.enable=1\n', mode: '644' } } } : {}) });
  return { sim: exec.simulator, exec };
}

describe('simulator output matches the FreeBSD samples', () => {
  test('jls table and jls --libxo json, byte for byte', async () => {
    const { sim } = simulated([{ ctid: 1, name: 'classic', state: 'running', ip4: '192.168.250.70', path: '/usr/local/jails/containers/classic' }]);
    expect((await sim.run(['jls'])).stdout).toBe(fixture('jls.txt'));
    expect((await sim.run(['jls', '--libxo=json'])).stdout).toBe(fixture('jls-libxo-json.txt'));
    expect((await sim.run(['jls', '--libxo', 'json'])).stdout).toBe(fixture('jls-libxo-json.txt'));
  });

  test('jls -v --libxo json, byte for byte', async () => {
    const { sim } = simulated([
      { ctid: 2, name: 'git7', state: 'running', ip4: '172.16.20.98', path: '/usr/local/bastille/jails/git7/root' },
      { ctid: 3, name: 'sto2', state: 'running', ip4: '172.16.20.112', ip6: '2001:470:e8af:20::532', path: '/usr/local/bastille/jails/sto2/root' },
      { ctid: 4, name: 'git6', state: 'running', ip4: '172.16.20.99', ip6: '2001:470:e8af:20::577', path: '/usr/local/bastille/jails/git6/root' },
    ]);
    // the sample's jids and cpuset ids
    await sim.state((s) => {
      const ids: Record<string, [number, number]> = { git7: [2, 5], sto2: [105, 7], git6: [116, 3] };
      for (const j of s.jails!) [j.jid, j.cpusetId] = ids[j.name];
    });
    expect((await sim.run(['jls', '-v', '--libxo=json'])).stdout).toBe(fixture('jls-v-libxo-json-bastille.txt'));
  });

  test('rctl -hu prints usage in the sample`s resource=value form', async () => {
    const { sim } = simulated([{ ctid: 5, name: 'web', state: 'running', memoryUsedBytes: 78 * 2 ** 20 }], true);
    const out = (await sim.run(['rctl', '-hu', 'jail:web'])).stdout;
    expect(out.split('\n').filter((l) => l.startsWith('memoryuse='))).toEqual(fixture('rctl-hu-process-grep-memoryuse.txt').split('\n').slice(0, 1));
    // a jail subject is a name (prison_racct_find creates it): no running jail reads as zeros
    expect((await sim.run(['rctl', '-u', 'jail:nope'])).stdout).toContain('memoryuse=0\n');
  });
});

describe('jail drivers against the simulated host', () => {
  const seeded = () =>
    simulated(
      [
        {
          ctid: 101,
          name: 'web',
          hostname: 'web.example.net',
          dataset: 'zroot/jails/web',
          state: 'running',
          hooks: { poststart: { enabled: true, script: 'echo started' }, prestop: { enabled: false, script: 'echo kept' } },
          cpuSet: [1],
          memoryBytes: 512 * 2 ** 20,
          memoryUsedBytes: 100 * 2 ** 20,
        },
        { ctid: 102, name: 'db', dataset: 'zroot/jails/db', state: 'stopped' },
      ],
      true,
    );

  test('inventory: seeded jails with state, hooks, limits and memory use', async () => {
    const { exec } = seeded();
    const inv = await jailInventory(exec);
    expect(inv.map((j) => [j.ctid, j.name, j.state])).toEqual([
      [101, 'web', 'running'],
      [102, 'db', 'stopped'],
    ]);
    const web = inv[0];
    expect(web).toMatchObject({
      hostname: 'web.example.net',
      path: '/zroot/jails/web',
      dataset: 'zroot/jails/web',
      cpuSet: [1],
      memoryBytes: 512 * 2 ** 20,
      memoryUsedBytes: 100 * 2 ** 20,
    });
    expect(web.jid).toBeGreaterThan(0);
    expect(web.hooks.poststart).toEqual({ enabled: true, script: 'echo started' });
    expect(web.hooks.prestop).toEqual({ enabled: false, script: 'echo kept' });
    expect(web.hooks.start).toEqual({ enabled: false, script: '' });
    expect(inv[1]).toMatchObject({ jid: null, cpuSet: [], memoryBytes: 0, memoryUsedBytes: null });
  });

  test('E3 on the host: hooks written and wired; they run on the next stop/start, in order', async () => {
    const { sim, exec } = seeded();
    const hooks = {
      ...noHooks(),
      prestart: { enabled: true, script: 'echo pre' },
      start: { enabled: true, script: '#!/bin/sh\necho in-jail' },
      poststop: { enabled: true, script: 'echo bye' },
    };
    const wired = await applyHooks(exec, 101, hooks);
    expect(wired).toEqual(['prestart', 'start', 'poststop']);
    const inv = (await jailInventory(exec)).find((j) => j.ctid === 101)!;
    expect(inv.hooks).toEqual({ ...hooks, poststart: { enabled: false, script: '' }, prestop: { enabled: false, script: '' } });
    // the running jail is not touched: no hook ran yet
    const before = await sim.state((s) => findSimJail(s, 'web')!.hookRuns ?? []);
    expect(before.map((r) => r.command)).not.toContain('/usr/local/etc/hostmgr/jails/101/hooks/prestart.sh');
    const j = await findJail(exec, 101);
    await stopJail(exec, j.name, j.files.conf);
    await startJail(exec, j.name, j.files.conf);
    const runs = await sim.state((s) => findSimJail(s, 'web')!.hookRuns!.map((r) => `${r.phase} ${r.command}`));
    expect(runs.slice(-6)).toEqual([
      'stop /bin/sh /etc/rc.shutdown',
      'poststop /usr/local/etc/hostmgr/jails/101/hooks/poststop.sh',
      'prestart /usr/local/etc/hostmgr/jails/101/hooks/prestart.sh',
      'start /bin/sh /etc/rc',
      // the start hook: a host file fed to the jail through jexec, right after exec.start
      'poststart /bin/sh -c /usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/start.sh',
      // the seeded post-start limits keep running after the hooks changed
      'poststart /usr/local/etc/hostmgr/jails/101/limits.sh',
    ]);
    expect((await sim.run(['cat', '/usr/local/etc/hostmgr/jails/101/hooks/start.sh'])).stdout).toBe('#!/bin/sh\necho in-jail');
    // clearing every phase removes the files and the lines
    await applyHooks(exec, 101, noHooks());
    expect((await jailInventory(exec)).find((x) => x.ctid === 101)!.hooks).toEqual(noHooks());
    expect((await sim.run(['cat', '/etc/jail.conf.d/web.conf'])).stdout).not.toMatch(/hooks\//);
  });

  test('E4 on the host: a running jail is pinned at once and again at every start; a stopped one only gets the script', async () => {
    const { sim, exec } = seeded();
    expect(await applyLimits(exec, 101, { cpuSet: [2, 3], memoryBytes: 2 ** 30 }, true)).toEqual({ appliedNow: true, cpuSet: [2, 3] });
    let web = await sim.state((s) => findSimJail(s, 'web')!);
    expect(web.affinity).toEqual([2, 3]);
    expect(await sim.state((s) => s.rctlRules)).toEqual(['jail:web:memoryuse:deny=1073741824']);
    const j = await findJail(exec, 101);
    await stopJail(exec, j.name, j.files.conf);
    await startJail(exec, j.name, j.files.conf);
    web = await sim.state((s) => findSimJail(s, 'web')!);
    expect(web.affinity).toEqual([2, 3]);
    expect((await jailInventory(exec)).find((x) => x.ctid === 101)).toMatchObject({ cpuSet: [2, 3], memoryBytes: 2 ** 30, state: 'running' });

    expect(await applyLimits(exec, 102, { cpuSet: [0], memoryBytes: 0 }, false)).toEqual({ appliedNow: false, cpuSet: [0] });
    expect(await sim.state((s) => findSimJail(s, 'db')!.affinity)).toBeUndefined();
    await startJail(exec, 'db', (await findJail(exec, 102)).files.conf);
    expect(await sim.state((s) => findSimJail(s, 'db')!.affinity)).toEqual([0]);
    expect((await listRunningJails(exec)).map((r) => r.name).sort()).toEqual(['db', 'web']);
    // cpuset.c printaffinity: the CPU mask, then the memory-domain policy line
    const jid = await sim.state((s) => findSimJail(s, 'web')!.jid);
    expect((await sim.run(['cpuset', '-g', '-j', 'web'])).stdout).toBe(`jail ${jid} mask: 2, 3\njail ${jid} domain policy: first-touch mask: 0\n`);
  });

  test('commands fail in FreeBSD`s words', async () => {
    const { sim, exec } = seeded();
    expect((await sim.run(['cpuset', '-l', '9', '-j', 'web'])).stderr).toBe('cpuset: setaffinity: Invalid argument\n');
    expect((await sim.run(['cpuset', '-l', '0', '-j', 'db'])).stderr).toBe('cpuset: jail "db" not found\n');
    await expect(startJail(exec, 'web', '/etc/jail.conf.d/web.conf')).rejects.toThrow(/already exists/);
    await expect(findJail(exec, 999)).rejects.toThrow(/not configured/);
    expect((await sim.run(['cat', '/nope'])).stderr).toBe('cat: /nope: No such file or directory\n');
  });
});
