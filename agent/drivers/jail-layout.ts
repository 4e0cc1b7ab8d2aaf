import { HOOK_PHASES, hookInterpreter, IN_JAIL_PHASES, type HookPhase } from '#shared/agent-api/jail-hooks';
import { parseCpuList } from '#shared/agent-api/jail-cpu';
import { memoryRule } from './rctl.ts';
import { pinJailArgv } from './cpuset.ts';
import { quote } from './jail-conf.ts';

/**
 * Where a managed jail lives on its host:
 *   /etc/jail.conf.d/<name>.conf                         the jail's conf (rc.d/jail reads it for a name in
 *                                                        jail_list); first line `# hostmgr: ctid=<ctid> dataset=<ds>`
 *   /usr/local/etc/hostmgr/jails/<ctid>/hooks/<phase>.sh  every hook script, all six phases
 *   /usr/local/etc/hostmgr/jails/<ctid>/limits.sh         the post-start resource limits (cpuset, rctl)
 * The conf's managed section wires them with `exec.<phase> += "<command>";` lines (agent/drivers/jail-conf.ts).
 *
 * Nothing lives inside the jail's root: a root user in the jail can make any path there a symbolic link to a
 * host file (/etc/master.passwd), and the host's cat/tee/chmod would follow it. So the start and stop hooks,
 * which run in the jail, are host files too, fed to the jail on standard input: the start hook runs first in
 * exec.poststart (right after exec.start's /etc/rc), the stop hook last in exec.prestop (right before
 * exec.stop's /etc/rc.shutdown), each as `/usr/sbin/jexec -l <jail> <interpreter> < <host file>`. jexec
 * attaches to the jail (jail_attach + chroot), so the script sees only the jail; `-l` gives it a clean
 * environment like exec.clean. The `<` makes jail(8) run the line with `/bin/sh -c` on the host (command.c).
 */
export const JAIL_CONF_DIR = '/etc/jail.conf.d';
const JAIL_STATE_ROOT = '/usr/local/etc/hostmgr/jails';
const JEXEC = '/usr/sbin/jexec';

/** every hook phase's script is a host file (none inside the jail's root) */
export const HOST_HOOK_PHASES: readonly HookPhase[] = HOOK_PHASES;

/** `${name}` / `$name` in a conf path (the handbook's style) expanded for one jail. */
export const expandName = (path: string, name: string) => path.replace(/\$\{name\}|\$name\b/g, name);

export function jailFiles(ctid: number, name: string) {
  const dir = `${JAIL_STATE_ROOT}/${ctid}`;
  return {
    name,
    conf: `${JAIL_CONF_DIR}/${name}.conf`,
    dir,
    hooksDir: `${dir}/hooks`,
    limits: `${dir}/limits.sh`,
    hookFile: (phase: HookPhase) => `${dir}/hooks/${phase}.sh`,
  };
}
export type JailFiles = ReturnType<typeof jailFiles>;

/** The jail(8) parameter a phase's hook is wired into. */
export const hookParam = (phase: HookPhase) => (phase === 'start' ? 'exec.poststart' : phase === 'stop' ? 'exec.prestop' : `exec.${phase}`);

/** The exec command of a hook: the host file itself, or for start/stop the jexec line feeding it to the jail. */
export function hookCommand(files: JailFiles, phase: HookPhase, script: string): string {
  if (!IN_JAIL_PHASES.includes(phase)) return files.hookFile(phase);
  const interpreter = hookInterpreter(script);
  if (!interpreter) throw new Error(`the ${phase} hook's '#!' line must be an absolute path with at most one argument`);
  return `${JEXEC} -l ${files.name} ${interpreter.join(' ')} < ${files.hookFile(phase)}`;
}

/** Is `command` (an exec value of the conf) the wiring of this phase's hook? */
export function isHookCommand(files: JailFiles, phase: HookPhase, command: string): boolean {
  if (!IN_JAIL_PHASES.includes(phase)) return command === files.hookFile(phase);
  return command.startsWith(`${JEXEC} -l ${files.name} /`) && command.endsWith(` < ${files.hookFile(phase)}`);
}

/** Marks an interpreter line the agent added (scripts without `#!`), so reading the file back gives the script. */
const ADDED_SHEBANG = '#!/bin/sh\n# hostmgr: interpreter line added by the agent\n';

export const hookFileContent = (script: string) => (script.startsWith('#!') ? script : ADDED_SHEBANG + script);
export const scriptOfHookFile = (content: string) => (content.startsWith(ADDED_SHEBANG) ? content.slice(ADDED_SHEBANG.length) : content);

export interface Limits {
  cpuSet: number[];
  memoryBytes: number;
}

/**
 * The post-start limits script; '' when there is nothing to limit. jail(8) fails the start when it exits
 * non-zero (it is an exec.poststart command), so each line decides what a failure means:
 * - cpuset: the jail does not start (`|| exit 1`) rather than run on every CPU; the agent fits the list to the
 *   host's CPUs when it writes the script and before it starts the jail, so this only trips on a host that
 *   lost CPUs since;
 * - rctl: the jail starts without its memory limit and the reason is logged (rctl's own message on stderr, then
 *   syslog through logger -s): with RACCT disabled (kern.racct.enable=0) every rctl call fails.
 */
export function limitsFileContent(name: string, ctid: number, l: Limits): string {
  const lines: string[] = [];
  // the same commands applyLimits runs at once on a running jail
  if (l.cpuSet.length) lines.push(`${pinJailArgv(name, l.cpuSet).join(' ')} || exit 1`);
  if (l.memoryBytes > 0)
    lines.push(
      `rctl -a ${memoryRule(name, l.memoryBytes)} || logger -s -t hostmgr "jail ${name}: memory limit not applied (rctl failed); the jail runs without it"`,
    );
  if (!lines.length) return '';
  return ['#!/bin/sh', `# hostmgr: resource limits of jail ${name} (CTID ${ctid}), run by exec.poststart`, ...lines, ''].join('\n');
}

export function parseLimitsFile(content: string | null): Limits {
  const out: Limits = { cpuSet: [], memoryBytes: 0 };
  for (const line of (content ?? '').split('\n')) {
    const cpu = /^cpuset -l (\S+) -j \S+(?:\s|$)/.exec(line.trim());
    if (cpu) out.cpuSet = parseCpuList(cpu[1]);
    const mem = /^rctl -a jail:[^:]+:memoryuse:deny=(\d+)(?:\s|$)/.exec(line.trim());
    if (mem) out.memoryBytes = Number(mem[1]);
  }
  return out;
}

/**
 * The managed section's lines in jail(8)'s order: prestart; poststart: the start hook, the poststart hook, the
 * limits; prestop: the prestop hook, the stop hook; poststop. `wired` maps each wired phase to its command.
 */
export function managedLines(files: JailFiles, wired: Partial<Record<HookPhase, string>>, hasLimits: boolean): string[] {
  const line = (param: string, command: string) => `${param} += ${quote(command)};`;
  const hook = (p: HookPhase) => (wired[p] === undefined ? [] : [line(hookParam(p), wired[p]!)]);
  return [
    ...hook('prestart'),
    ...hook('start'),
    ...hook('poststart'),
    ...(hasLimits ? [line('exec.poststart', files.limits)] : []),
    ...hook('prestop'),
    ...hook('stop'),
    ...hook('poststop'),
  ];
}
