import type { SimJail } from '#shared/seed/host/jail';
import { HOOK_PHASES, hookInterpreter, IN_JAIL_PHASES, type HookPhase } from '#shared/agent-api/jail-hooks';

/**
 * The files a seeded jail has on its simulated host: what an earlier run of the agent left there (its layout is
 * documented in agent/drivers/jail-layout.ts and docs/jails.md), written here from that description and none of the
 * agent's code, so that an agent that reads its own files wrong fails against them:
 *   /etc/jail.conf.d/<name>.conf                         first line `# hostmgr: ctid=<ctid>[ dataset=<ds>]`, then a
 *                                                        classic handbook jail block whose end holds the managed
 *                                                        section (`exec.<param> += "<command>";` lines between markers)
 *   /usr/local/etc/hostmgr/jails/<ctid>/hooks/<phase>.sh  each hook script (an interpreter line added when it has none)
 *   /usr/local/etc/hostmgr/jails/<ctid>/limits.sh         the post-start cpuset/rctl commands
 * Strings are jail.conf double-quoted strings: jaillex.l reads `\` escapes and expands `$name` inside "…", so `\`,
 * `"`, a newline and `$` are escaped.
 */
const STATE_ROOT = '/usr/local/etc/hostmgr/jails';
const BEGIN = '### hostmgr: managed hooks and limits, rewritten by the agent ###';
const END = '### hostmgr: end of managed section ###';
const ADDED_SHEBANG = '#!/bin/sh\n# hostmgr: interpreter line added by the agent\n';

const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\$/g, '\\$')}"`;

export interface SeedFile {
  path: string;
  content: string;
  mode: string;
}

export const seedConfPath = (name: string) => `/etc/jail.conf.d/${name}.conf`;

/** rctl's memory rule of a jail (rctl(8) `subject:id:resource:action=amount`) */
export const memoryRuleOf = (jail: string, bytes: number) => `jail:${jail}:memoryuse:deny=${bytes}`;

/** The seeded jail's conf, hook scripts and limits script, for a jail rooted at `path`. */
export function seedJailFiles(j: SimJail, path: string): SeedFile[] {
  const dir = `${STATE_ROOT}/${j.ctid}`;
  const hookFile = (p: HookPhase) => `${dir}/hooks/${p}.sh`;
  const files: SeedFile[] = [];
  const managed: string[] = [];
  const wire = (param: string, command: string) => managed.push(`${param} += ${q(command)};`);
  const wired = new Map<HookPhase, string>();
  for (const p of HOOK_PHASES) {
    const h = j.hooks?.[p];
    if (!h || (!h.enabled && !h.script.trim())) continue;
    files.push({ path: hookFile(p), content: h.script.startsWith('#!') ? h.script : ADDED_SHEBANG + h.script, mode: '755' });
    if (!h.enabled || !h.script.trim()) continue;
    if (!IN_JAIL_PHASES.includes(p)) wired.set(p, hookFile(p));
    else {
      // start/stop run inside the jail: the host file fed to jexec on stdin; a #! line E3 would refuse is not wired
      const interpreter = hookInterpreter(h.script);
      if (interpreter) wired.set(p, `/usr/sbin/jexec -l ${j.name} ${interpreter.join(' ')} < ${hookFile(p)}`);
    }
  }
  const limits: string[] = [];
  if (j.cpuSet?.length) limits.push(`cpuset -l ${j.cpuSet.join(',')} -j ${j.name} || exit 1`);
  if (j.memoryBytes)
    limits.push(
      `rctl -a ${memoryRuleOf(j.name, j.memoryBytes)} || logger -s -t hostmgr "jail ${j.name}: memory limit not applied (rctl failed); the jail runs without it"`,
    );
  if (limits.length)
    files.push({
      path: `${dir}/limits.sh`,
      content: ['#!/bin/sh', `# hostmgr: resource limits of jail ${j.name} (CTID ${j.ctid}), run by exec.poststart`, ...limits, ''].join('\n'),
      mode: '755',
    });
  // jail(8) runs each exec list in order: prestart; poststart: start hook, poststart hook, limits; prestop: prestop hook, stop hook; poststop
  const hook = (p: HookPhase, param: string) => wired.has(p) && wire(param, wired.get(p)!);
  hook('prestart', 'exec.prestart');
  hook('start', 'exec.poststart');
  hook('poststart', 'exec.poststart');
  if (limits.length) wire('exec.poststart', `${dir}/limits.sh`);
  hook('prestop', 'exec.prestop');
  hook('stop', 'exec.prestop');
  hook('poststop', 'exec.poststop');

  const conf = [
    `# hostmgr: ctid=${j.ctid}${j.dataset ? ` dataset=${j.dataset}` : ''}`,
    `${j.name} {`,
    `\texec.start = "/bin/sh /etc/rc";`,
    `\texec.stop = "/bin/sh /etc/rc.shutdown";`,
    `\texec.consolelog = "/var/log/jail_console_\${name}.log";`,
    `\texec.clean;`,
    `\tmount.devfs;`,
    `\thost.hostname = ${q(j.hostname ?? j.name)};`,
    `\tpath = ${q(path)};`,
    ...(j.ip4 ? [`\tip4.addr = ${j.ip4};`] : []),
    ...(managed.length ? [BEGIN, ...managed, END].map((l) => `\t${l}`) : []),
    '}',
    '',
  ].join('\n');
  files.push({ path: seedConfPath(j.name), content: conf, mode: '644' });
  return files;
}
