import { getopt } from '../format.ts';
import { fail, registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { jailsOf, runningJails } from './jail-model.ts';

/**
 * rctl(8) for jail subjects: `-a jail:<name>:<resource>:<action>=<amount>` adds (replaces) a rule of a running
 * jail, `-r jail:<name>[:…]` removes its rules, `-u jail:<name>` prints its usage as `resource=value` lines
 * (the form of the rctl sample in test/fixtures/freebsd; `-h` humanizes), `rctl [filter]` lists rules.
 */
const USAGE_RESOURCES = ['cputime', 'datasize', 'stacksize', 'coredumpsize', 'memoryuse', 'memorylocked', 'maxproc', 'openfiles', 'vmemoryuse', 'pseudoterminals', 'swapuse', 'nthr', 'wallclock', 'pcpu'];

/** humanize_number(3) as rctl -h uses it: the largest unit that keeps the value >= 1, rounded (`78M`). */
function human(n: number): string {
  const units = ['', 'K', 'M', 'G', 'T'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Math.round(v)}${units[i]}`;
}

function subjectJail(ctx: CommandContext, filter: string) {
  const [type, name] = filter.split(':');
  if (type !== 'jail' || !name) return null;
  return runningJails(ctx.state).find((j) => j.name === name) ?? null;
}

function rctl(ctx: CommandContext) {
  const o = getopt(ctx.args, 'ahlnrSu');
  const [arg] = o.operands;
  if (o.flags.has('a')) {
    const m = /^jail:([^:]+):([a-z]+):([a-z]+)=(\d+)$/.exec(arg ?? '');
    if (!m) return fail(`rctl: failed to parse rule '${arg ?? ''}'`, 1);
    const j = subjectJail(ctx, arg);
    if (!j) return fail(`rctl: failed to add rule '${arg}': No such process`, 1);
    j.rules = [...(j.rules ?? []).filter((r) => !r.startsWith(`jail:${m[1]}:${m[2]}:${m[3]}=`)), arg];
    return {};
  }
  if (o.flags.has('r')) {
    const [, name, resource] = (arg ?? '').split(':');
    for (const j of jailsOf(ctx.state)) {
      if (j.name !== name) continue;
      j.rules = (j.rules ?? []).filter((r) => resource && !r.startsWith(`jail:${name}:${resource}:`));
    }
    return {};
  }
  if (o.flags.has('u')) {
    const j = arg ? subjectJail(ctx, arg) : null;
    if (!j) return fail(`rctl: failed to get resource usage for '${arg ?? ''}': No such process`, 1);
    const used: Record<string, number> = { memoryuse: j.memoryUsedBytes ?? 0, vmemoryuse: Math.round((j.memoryUsedBytes ?? 0) * 7.3), maxproc: 7, nthr: 9, openfiles: 96, wallclock: 1 };
    const fmt = (r: string, v: number) => `${r}=${o.flags.has('h') && ['memoryuse', 'vmemoryuse', 'datasize', 'stacksize', 'swapuse'].includes(r) ? human(v) : v}`;
    return { stdout: USAGE_RESOURCES.map((r) => `${fmt(r, used[r] ?? 0)}\n`).join('') };
  }
  const prefix = arg ? arg : '';
  const rules = jailsOf(ctx.state).flatMap((j) => j.rules ?? []).filter((r) => r.startsWith(prefix));
  return { stdout: rules.map((r) => `${r}\n`).join('') };
}

registerCommand('rctl', withUsage(rctl, '\trctl [-h] [-n] [filter]\n\trctl -a rule\n\trctl -l filter\n\trctl -r filter\n\trctl -u [-h] filter'));
