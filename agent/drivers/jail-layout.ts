import { HOOK_PHASES, type HookPhase } from '#domain/jails/hooks';
import { parseCpuList } from '#domain/jails/cpu';
import { memoryRule } from './rctl.ts';
import { pinJailArgv } from './cpuset.ts';
import { quote } from './jail-conf.ts';

/**
 * Where a managed jail lives on its host:
 *   /etc/jail.conf.d/<name>.conf                         the jail's conf (FreeBSD 14's `service jail` reads it);
 *                                                        its first line `# hostmgr: ctid=<ctid> dataset=<ds>`
 *   /usr/local/etc/hostmgr/jails/<ctid>/hooks/<phase>.sh  host-side hooks: prestart, poststart, prestop, poststop
 *   <jail root>/usr/local/etc/hostmgr/hooks/<phase>.sh    start and stop hooks: jail(8) runs exec.start/exec.stop
 *                                                        inside the jail, so they live in the jail's own tree
 *   /usr/local/etc/hostmgr/jails/<ctid>/limits.sh         the post-start resource limits (cpuset, rctl)
 * The conf's managed section wires them with `exec.<phase> += "<script>";` lines (agent/drivers/jail-conf.ts).
 */
export const JAIL_CONF_DIR = '/etc/jail.conf.d';
const JAIL_STATE_ROOT = '/usr/local/etc/hostmgr/jails';
/** where start/stop hooks live, as seen from inside the jail */
const IN_JAIL_HOOK_DIR = '/usr/local/etc/hostmgr/hooks';

const IN_JAIL: ReadonlySet<HookPhase> = new Set(['start', 'stop']);
/** hook phases whose scripts live on the host, outside the jail's dataset */
export const HOST_HOOK_PHASES = HOOK_PHASES.filter((p) => !IN_JAIL.has(p));

/** `${name}` / `$name` in a conf path (the handbook's style) expanded for one jail. */
export const expandName = (path: string, name: string) => path.replace(/\$\{name\}|\$name\b/g, name);

export function jailFiles(ctid: number, name: string, root: string) {
  const dir = `${JAIL_STATE_ROOT}/${ctid}`;
  const jailRoot = expandName(root, name).replace(/\/+$/, '');
  return {
    conf: `${JAIL_CONF_DIR}/${name}.conf`,
    dir,
    hooksDir: `${dir}/hooks`,
    limits: `${dir}/limits.sh`,
    inJailHooksDir: `${jailRoot}${IN_JAIL_HOOK_DIR}`,
    /** the file on the host */
    hookFile: (phase: HookPhase) => (IN_JAIL.has(phase) ? `${jailRoot}${IN_JAIL_HOOK_DIR}/${phase}.sh` : `${dir}/hooks/${phase}.sh`),
    /** what the conf's exec line names (inside the jail for start/stop) */
    hookCommand: (phase: HookPhase) => (IN_JAIL.has(phase) ? `${IN_JAIL_HOOK_DIR}/${phase}.sh` : `${dir}/hooks/${phase}.sh`),
  };
}
export type JailFiles = ReturnType<typeof jailFiles>;

/** Marks an interpreter line the agent added (scripts without `#!`), so reading the file back gives the script. */
const ADDED_SHEBANG = '#!/bin/sh\n# hostmgr: interpreter line added by the agent\n';

export const hookFileContent = (script: string) => (script.startsWith('#!') ? script : ADDED_SHEBANG + script);
export const scriptOfHookFile = (content: string) => (content.startsWith(ADDED_SHEBANG) ? content.slice(ADDED_SHEBANG.length) : content);

export interface Limits {
  cpuSet: number[];
  memoryBytes: number;
}

/** The post-start limits script; '' when there is nothing to limit. */
export function limitsFileContent(name: string, ctid: number, l: Limits): string {
  const lines: string[] = [];
  // the same commands applyLimits runs at once on a running jail
  if (l.cpuSet.length) lines.push(pinJailArgv(name, l.cpuSet).join(' '));
  if (l.memoryBytes > 0) lines.push(`rctl -a ${memoryRule(name, l.memoryBytes)}`);
  if (!lines.length) return '';
  return ['#!/bin/sh', `# hostmgr: resource limits of jail ${name} (CTID ${ctid}), run by exec.poststart`, ...lines, ''].join('\n');
}

export function parseLimitsFile(content: string | null): Limits {
  const out: Limits = { cpuSet: [], memoryBytes: 0 };
  for (const line of (content ?? '').split('\n')) {
    const cpu = /^cpuset -l (\S+) -j \S+$/.exec(line.trim());
    if (cpu) out.cpuSet = parseCpuList(cpu[1]);
    const mem = /^rctl -a jail:[^:]+:memoryuse:deny=(\d+)$/.exec(line.trim());
    if (mem) out.memoryBytes = Number(mem[1]);
  }
  return out;
}

/** The managed section's lines: each wired hook phase (jail(8)'s order), then the limits after any poststart hook. */
export function managedLines(files: JailFiles, wired: HookPhase[], hasLimits: boolean): string[] {
  const lines = HOOK_PHASES.filter((p) => wired.includes(p)).map((p) => `exec.${p} += ${quote(files.hookCommand(p))};`);
  if (hasLimits) {
    const at = lines.findIndex((l) => l.startsWith('exec.prestop'));
    const limits = `exec.poststart += ${quote(files.limits)};`;
    if (at < 0) lines.push(limits);
    else lines.splice(at, 0, limits);
  }
  return lines;
}
