import type { SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { registerScriptCommand, type ShellResult } from '../shell.ts';
import { parseCpuList } from '#shared/agent-api/jail-cpu';
import { runningJails } from './jail-model.ts';

/**
 * cpuset(1) for jails (bin/cpuset/cpuset.c): `cpuset -l <list> -j <jid|name>` sets a running jail's CPU
 * affinity (`-j` goes through jail_getid(), so an unknown jail is libjail's `jail "x" not found`); a list
 * naming a CPU the host lacks fails in cpuset_setaffinity with EINVAL (`cpuset: setaffinity: Invalid
 * argument`); `cpuset -g -j` prints cpuset.c printaffinity's two lines, the CPU mask `jail <jid> mask: 0, 1` (every
 * CPU when none was set) and the memory-domain policy `jail <jid> domain policy: first-touch mask: 0` (one
 * memory domain; first-touch is the policy domainset_fill gives the sets processes and jails inherit, sys/kern/kern_cpuset.c domainset_zero). Only the jail forms
 * are simulated.
 */
function cpuset(state: SimHost, args: string[]): ShellResult {
  const fail = (stderr: string, code = 1): ShellResult => ({ code, stdout: '', stderr: `${stderr}\n` });
  const o = getopt(args, 'cgil:rj:p:t:s:x:d:n:C');
  const which = o.values.get('j');
  if (which === undefined) return fail('cpuset: only the -j (jail) form is simulated', 64);
  const j = runningJails(state).find((x) => x.name === which || String(x.jid) === which);
  if (!j) return fail(`cpuset: jail "${which}" not found`);
  if (o.flags.has('g')) {
    const cpus = j.affinity ?? Array.from({ length: state.cpus }, (_, i) => i);
    return { code: 0, stdout: `jail ${j.jid} mask: ${cpus.join(', ')}\njail ${j.jid} domain policy: first-touch mask: 0\n`, stderr: '' };
  }
  const list = o.values.get('l');
  if (list === undefined) return fail('usage: cpuset [-l cpu-list] [-j jail]', 64);
  let cpus: number[];
  try {
    cpus = list === 'all' ? Array.from({ length: state.cpus }, (_, i) => i) : parseCpuList(list);
  } catch {
    return fail(`cpuset: invalid cpu list: ${list}`, 64);
  }
  if (!cpus.length || cpus.some((c) => c >= state.cpus)) return fail('cpuset: setaffinity: Invalid argument');
  j.affinity = cpus;
  return { code: 0, stdout: '', stderr: '' };
}

registerCommand(
  'cpuset',
  withUsage((ctx: CommandContext) => cpuset(ctx.state, ctx.args), '\tcpuset [-l cpu-list] [-j jail]\n\tcpuset -g [-j jail]'),
);
registerScriptCommand('cpuset', (sh, argv) => cpuset(sh.state, argv.slice(1)));
