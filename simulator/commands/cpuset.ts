import { getopt } from '../format.ts';
import { fail, registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { parseCpuList } from '#domain/jails/cpu';
import { runningJails } from './jail-model.ts';

/**
 * cpuset(1) for jails: `cpuset -l <list> -j <jid|name>` sets a running jail's CPU affinity; `cpuset -g -j`
 * prints it in cpuset.c's format (`jail <jid> mask: 0, 1`). Only the jail forms are simulated.
 */
function cpuset(ctx: CommandContext) {
  const o = getopt(ctx.args, 'cgil:rj:p:t:s:x:d:n:C');
  const which = o.values.get('j');
  if (which === undefined) return fail('cpuset: only the -j (jail) form is simulated', 64);
  const j = runningJails(ctx.state).find((x) => x.name === which || String(x.jid) === which);
  if (!j) return fail(`cpuset: jail "${which}" not found`, 1);
  if (o.flags.has('g')) return { stdout: `jail ${j.jid} mask: ${(j.affinity ?? []).join(', ')}\n` };
  const list = o.values.get('l');
  if (list === undefined) return fail('usage: cpuset [-l cpu-list] [-j jail]', 64);
  let cpus: number[];
  try {
    cpus = list === 'all' ? Array.from({ length: ctx.state.cpus }, (_, i) => i) : parseCpuList(list);
  } catch {
    return fail(`cpuset: invalid cpu list: ${list}`, 64);
  }
  if (!cpus.length || cpus.some((c) => c >= ctx.state.cpus)) return fail('cpuset: setaffinity: Invalid argument', 1);
  j.affinity = cpus;
  return {};
}

registerCommand('cpuset', withUsage(cpuset, '\tcpuset [-l cpu-list] [-j jail]\n\tcpuset -g [-j jail]'));
