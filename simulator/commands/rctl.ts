import type { SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { registerScriptCommand, type ShellResult } from '../shell.ts';
import { racctEnabled } from './host-release.ts';
import { runningJails } from './jail-model.ts';

/**
 * rctl(8) for jail subjects, after usr.bin/rctl/rctl.c and sys/kern/kern_rctl.c:
 * - With RACCT disabled (kern.racct.enable=0, GENERIC's default) every rctl system call returns ENOSYS and
 *   rctl's enosys() ends with `RACCT/RCTL present, but disabled; enable using kern.racct.enable=1 tunable`.
 * - `-a jail:<name>:<resource>:<action>=<amount>` adds a rule; a `deny` rule replaces one differing only by
 *   amount (rctl_rule_add). A jail subject is a *name* (prison_racct_find creates it on demand), so a rule can
 *   be added before the jail exists and stays in the kernel after the jail is removed, until `rctl -r` or a
 *   reboot.
 * - `-r <filter>` removes matching rules; none matching is ESRCH: `failed to remove rule '…': No such process`.
 * - `-u jail:<name>` prints usage as `resource=value` lines (`-h` humanizes); a name with no running jail
 *   reads as zeros.
 * - `rctl [filter]` lists rules.
 */
const USAGE_RESOURCES = [
  'cputime',
  'datasize',
  'stacksize',
  'coredumpsize',
  'memoryuse',
  'memorylocked',
  'maxproc',
  'openfiles',
  'vmemoryuse',
  'pseudoterminals',
  'swapuse',
  'nthr',
  'wallclock',
  'pcpu',
];
const RESOURCES = new Set([
  ...USAGE_RESOURCES,
  'msgqqueued',
  'msgqsize',
  'nmsgq',
  'nsem',
  'nsemop',
  'nshm',
  'shmsize',
  'readbps',
  'writebps',
  'readiops',
  'writeiops',
]);
const ACTIONS = new Set(['deny', 'log', 'devctl', 'throttle', 'sigterm', 'sigkill', 'sighup', 'sigint']);
const RACCT_DISABLED = 'rctl: RACCT/RCTL present, but disabled; enable using kern.racct.enable=1 tunable\n';

export const rctlRules = (state: SimHost): string[] => (state.rctlRules ??= []);

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

const UNIT: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40, p: 2 ** 50, e: 2 ** 60 };

/** `jail:web:memoryuse:deny=1g` → the rule as the kernel prints it (amount in bytes), or null. */
function parseRule(text: string): string | null {
  const m = /^jail:([^:]+):([a-z]+):([a-z]+)=(\d+)([kmgtpe]?)$/i.exec(text);
  if (!m || !RESOURCES.has(m[2]) || !ACTIONS.has(m[3])) return null;
  return `jail:${m[1]}:${m[2]}:${m[3]}=${Number(m[4]) * UNIT[m[5].toLowerCase()]}`;
}

/** Does a rule match a filter (`jail:web`, `jail:web:memoryuse`, `:`)? */
const matches = (rule: string, filter: string) => {
  const f = filter.split(':');
  const r = rule.split(/[:=]/);
  return f.every((part, i) => part === '' || part === r[i]);
};

function rctl(state: SimHost, args: string[]): ShellResult {
  const o = getopt(args, 'ahlnrSu');
  const [arg] = o.operands;
  if (!racctEnabled(state)) return { code: 1, stdout: '', stderr: RACCT_DISABLED };
  if (o.flags.has('a')) {
    const rule = parseRule(arg ?? '');
    if (!rule) return { code: 1, stdout: '', stderr: `rctl: failed to add rule '${arg ?? ''}': Invalid argument\n` };
    const key = rule.slice(0, rule.indexOf('=') + 1);
    state.rctlRules = [...rctlRules(state).filter((r) => !r.startsWith(key)), rule];
    return { code: 0, stdout: '', stderr: '' };
  }
  if (o.flags.has('r')) {
    const before = rctlRules(state).length;
    state.rctlRules = rctlRules(state).filter((r) => !matches(r, arg ?? ''));
    if (state.rctlRules.length === before) return { code: 1, stdout: '', stderr: `rctl: failed to remove rule '${arg ?? ''}': No such process\n` };
    return { code: 0, stdout: '', stderr: '' };
  }
  if (o.flags.has('u')) {
    const [type, name] = (arg ?? '').split(':');
    if (type !== 'jail' || !name) return { code: 1, stdout: '', stderr: `rctl: failed to get resource usage for '${arg ?? ''}': Invalid argument\n` };
    const j = runningJails(state).find((x) => x.name === name);
    const mem = j?.memoryUsedBytes ?? 0;
    const used: Record<string, number> = j ? { memoryuse: mem, vmemoryuse: Math.round(mem * 7.3), maxproc: 7, nthr: 9, openfiles: 96, wallclock: 1 } : {};
    const fmt = (r: string, v: number) =>
      `${r}=${o.flags.has('h') && ['memoryuse', 'vmemoryuse', 'datasize', 'stacksize', 'swapuse'].includes(r) ? human(v) : v}`;
    return { code: 0, stdout: USAGE_RESOURCES.map((r) => `${fmt(r, used[r] ?? 0)}\n`).join(''), stderr: '' };
  }
  const rules = rctlRules(state).filter((r) => !arg || matches(r, arg));
  return { code: 0, stdout: rules.map((r) => `${r}\n`).join(''), stderr: '' };
}

registerCommand(
  'rctl',
  withUsage(
    (ctx: CommandContext) => rctl(ctx.state, ctx.args),
    '\trctl [-h] [-n] [filter]\n\trctl -a rule\n\trctl -l filter\n\trctl -r filter\n\trctl -u [-h] filter',
  ),
);
registerScriptCommand('rctl', (sh, argv) => rctl(sh.state, argv.slice(1)));
