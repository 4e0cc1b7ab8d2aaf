import { HOOK_PHASES, hookInterpreter, normalizeHooks, noHooks, activePhases, type JailHooks } from '#shared/agent-api/jail-hooks';
import { hookProblems } from '#shared/domain/jails/hook-problems';
import { fitCpuSet, leastUsedCpus, parseCpuList, cpuList } from '#shared/agent-api/jail-cpu';
import { reportedGuestIds } from '#domain/jails/migrate';
import {
  hookFileContent,
  scriptOfHookFile,
  limitsFileContent,
  parseLimitsFile,
  managedLines,
  jailFiles,
  expandName,
  hookCommand,
  hookParam,
  isHookCommand,
} from '#agent/drivers/jail-layout';

const hooks = (over: Partial<JailHooks>): JailHooks => ({ ...noHooks(), ...over });

describe('E3 hook rules', () => {
  test('an enabled phase needs a non-blank script; every offending phase is named', () => {
    const h = hooks({ prestart: { enabled: true, script: '  \n\t' }, stop: { enabled: true, script: '' }, poststart: { enabled: true, script: 'echo ok' } });
    expect(hookProblems(h)).toEqual([
      { field: 'body.hooks.prestart.script', problem: 'must not be blank when the phase is enabled' },
      { field: 'body.hooks.stop.script', problem: 'must not be blank when the phase is enabled' },
    ]);
    expect(hookProblems(hooks({ poststop: { enabled: false, script: '' } }))).toEqual([]);
  });

  test('disabled + blank clears the phase; disabled with a script keeps it (not wired)', () => {
    const n = normalizeHooks(
      hooks({ prestart: { enabled: false, script: '   ' }, start: { enabled: false, script: 'echo later' }, stop: { enabled: true, script: 'echo bye' } }),
    );
    expect(n.prestart).toEqual({ enabled: false, script: '' });
    expect(n.start).toEqual({ enabled: false, script: 'echo later' });
    expect(activePhases(n)).toEqual(['stop']);
    expect(Object.keys(n)).toEqual([...HOOK_PHASES]);
  });
});

describe('E4 CPU selection', () => {
  test('least-used CPUs, ties to the lower number, ascending', () => {
    expect(leastUsedCpus(4, 2, [])).toEqual([0, 1]);
    expect(leastUsedCpus(4, 2, [[0, 1], [0]])).toEqual([2, 3]);
    expect(leastUsedCpus(4, 3, [[0, 1], [0], [2]])).toEqual([1, 2, 3]);
    expect(leastUsedCpus(4, 4, [[0, 1, 2, 3]])).toEqual([0, 1, 2, 3]);
    // a set from a bigger host (stale) does not break the count
    expect(leastUsedCpus(2, 1, [[0, 7]])).toEqual([1]);
  });

  test('cpuset -l lists', () => {
    expect(cpuList([0, 2, 3])).toBe('0,2,3');
    expect(parseCpuList('0,2-4')).toEqual([0, 2, 3, 4]);
    expect(() => parseCpuList('x')).toThrow();
  });
});

describe('E20 guest id clash', () => {
  test('ids of jails and VMs a node reports', () => {
    expect(reportedGuestIds({ jails: [{ ctid: 101 }], vms: [{ rid: 7 }] })).toEqual([101, 7]);
    expect(reportedGuestIds(null)).toEqual([]);
    expect(reportedGuestIds({ jails: 'x' })).toEqual([]);
  });
});

describe('host layout of a managed jail', () => {
  const f = jailFiles(101, 'web');

  test('every hook script is a host file under the agent dir; start/stop reach the jail through jexec', () => {
    expect(f.conf).toBe('/etc/jail.conf.d/web.conf');
    expect(f.hookFile('prestart')).toBe('/usr/local/etc/hostmgr/jails/101/hooks/prestart.sh');
    expect(f.hookFile('start')).toBe('/usr/local/etc/hostmgr/jails/101/hooks/start.sh');
    expect(hookCommand(f, 'start', 'echo hi')).toBe('/usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/start.sh');
    expect(hookCommand(f, 'stop', '#!/usr/local/bin/bash\necho hi')).toBe(
      '/usr/sbin/jexec -l web /usr/local/bin/bash < /usr/local/etc/hostmgr/jails/101/hooks/stop.sh',
    );
    expect(hookCommand(f, 'stop', '#!/usr/bin/env python3\nprint(1)')).toBe(
      '/usr/sbin/jexec -l web /usr/bin/env python3 < /usr/local/etc/hostmgr/jails/101/hooks/stop.sh',
    );
    expect(() => hookCommand(f, 'start', '#!/bin/sh; rm -rf /\necho')).toThrow(/'#!' line/);
    expect(hookCommand(f, 'prestop', '#!/bin/sh; x')).toBe('/usr/local/etc/hostmgr/jails/101/hooks/prestop.sh');
    expect(isHookCommand(f, 'start', hookCommand(f, 'start', 'x'))).toBe(true);
    expect(isHookCommand(f, 'start', '/usr/local/etc/hostmgr/hooks/start.sh')).toBe(false);
    expect(hookParam('start')).toBe('exec.poststart');
    expect(hookParam('stop')).toBe('exec.prestop');
    expect(expandName('/j/$name/x', 'a')).toBe('/j/a/x');
  });

  test('an in-jail hook needs a plain #! line (400 on E3)', () => {
    expect(hookInterpreter('echo')).toEqual(['/bin/sh']);
    expect(hookInterpreter('#! /bin/sh -e\nx')).toEqual(['/bin/sh', '-e']);
    expect(hookInterpreter('#!/bin/sh `id`\nx')).toBeNull();
    expect(hookInterpreter('#!sh\nx')).toBeNull();
    const hooks = { ...noHooks(), start: { enabled: true, script: '#!/bin/sh $(id)\n' }, prestart: { enabled: true, script: '#!/bin/sh $(id)\n' } };
    expect(hookProblems(hooks)).toEqual([{ field: 'body.hooks.start.script', problem: "its '#!' line must be an absolute path with at most one argument" }]);
  });

  test('hook files read back as the script that was set', () => {
    for (const s of ['echo hi', '#!/usr/local/bin/bash\necho hi\n', '#!/bin/sh\nexit 0', '']) expect(scriptOfHookFile(hookFileContent(s))).toBe(s);
    expect(hookFileContent('echo hi').startsWith('#!/bin/sh\n')).toBe(true);
  });

  test('limits script: cpuset failing stops the start, rctl failing is logged and tolerated; round trip', () => {
    const text = limitsFileContent('web', 101, { cpuSet: [1, 3], memoryBytes: 2 ** 30 });
    expect(text).toContain('cpuset -l 1,3 -j web || exit 1\n');
    expect(text).toContain(
      'rctl -a jail:web:memoryuse:deny=1073741824 || logger -s -t hostmgr "jail web: memory limit not applied (rctl failed); the jail runs without it"\n',
    );
    expect(parseLimitsFile(text)).toEqual({ cpuSet: [1, 3], memoryBytes: 2 ** 30 });
    // the form earlier agents wrote still reads
    expect(parseLimitsFile('cpuset -l 2 -j web\nrctl -a jail:web:memoryuse:deny=5\n')).toEqual({ cpuSet: [2], memoryBytes: 5 });
    expect(limitsFileContent('web', 101, { cpuSet: [], memoryBytes: 0 })).toBe('');
    expect(parseLimitsFile(null)).toEqual({ cpuSet: [], memoryBytes: 0 });
  });

  test('managed lines: jail(8) order; start hook first in poststart, stop hook last in prestop, limits after poststart', () => {
    const wired = Object.fromEntries((['poststop', 'prestart', 'poststart', 'prestop', 'start', 'stop'] as const).map((p) => [p, hookCommand(f, p, 'x')]));
    expect(managedLines(f, wired, true)).toEqual([
      'exec.prestart += "/usr/local/etc/hostmgr/jails/101/hooks/prestart.sh";',
      'exec.poststart += "/usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/start.sh";',
      'exec.poststart += "/usr/local/etc/hostmgr/jails/101/hooks/poststart.sh";',
      'exec.poststart += "/usr/local/etc/hostmgr/jails/101/limits.sh";',
      'exec.prestop += "/usr/local/etc/hostmgr/jails/101/hooks/prestop.sh";',
      'exec.prestop += "/usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/101/hooks/stop.sh";',
      'exec.poststop += "/usr/local/etc/hostmgr/jails/101/hooks/poststop.sh";',
    ]);
    expect(managedLines(f, {}, false)).toEqual([]);
  });
});

describe('CPU lists fitted to the host', () => {
  test('CPUs the host lacks are replaced by its lowest free ones; the core count is kept up to the host size', () => {
    expect(fitCpuSet([6, 7], 4)).toEqual([0, 1]);
    expect(fitCpuSet([1, 7], 4)).toEqual([0, 1]);
    expect(fitCpuSet([2, 3], 4)).toEqual([2, 3]);
    expect(fitCpuSet([0, 1, 2, 3, 4, 5], 4)).toEqual([0, 1, 2, 3]);
    expect(fitCpuSet([3, 9], 4)).toEqual([0, 3]);
  });
});
