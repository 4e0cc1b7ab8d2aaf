import type { SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { fail, registerBootHook, registerCommand, registerTicker, withUsage, type CommandContext } from '../registry.ts';
import { isFile, readFile, writeFile } from '../file-tree.ts';
import { rcConf, rcEnabled } from '../boot.ts';
import { run, type ShellResult } from '../shell.ts';
import { readJailParams, type JailParams } from './jail-conf-reader.ts';
import { findSimJail, jailsOf, logHook, markRunning, markStopped, materialize, type SimJail } from './jail-model.ts';

/**
 * jail(8) (usr.sbin/jail/jail.c, command.c): `jail [-f conf] -c name` creates a jail, `-r name` removes it,
 * reading the conf with jail(8)'s own grammar (jail-conf-reader.ts) and running its exec.* commands in
 * jail(8)'s order: prestart, (create), start in the jail, poststart; prestop, stop in the jail, (remove),
 * poststop. As command.c does it, a command with a shell metacharacter runs as `/bin/sh -c <command>`, any
 * other is split at whitespace and exec'd; every command runs through the simulator's sh (../shell.ts), so
 * scripts and the state-changing commands they call (cpuset, rctl, jexec) take effect.
 *
 * "All commands must succeed … or the jail will not be created or removed" (jail.8): a failing command prints
 * `jail: <name>: <command line>: failed` (exec failures first `jail: <name>: exec <path>: <error>`), the
 * remaining commands of the operation do not run and jail(8) exits 1. A create that fails after the jail
 * exists removes it again (`<name>: removed`); a failing prestop or stop leaves the jail running; a failing
 * poststop comes after the removal. Commands run inside the jail write to exec.consolelog when it is set.
 */

// Seeded jails are laid out on the host before the first command sees it.
registerTicker('jails', (state) => {
  for (const j of jailsOf(state)) if (!j.materialized) materialize(state, j);
});

const METACHARS = /[!"$&'()*;<>?[\\\]`{|}~]/;

interface Outcome {
  stdout: string;
  stderr: string;
}

/** One exec.* command the way run_command() runs it; false when it failed. */
function runOne(state: SimHost, now: number, j: SimJail, phase: string, params: JailParams, command: string, out: Outcome): boolean {
  const inJail = phase === 'start' || phase === 'stop';
  let argv: string[];
  // a lone trailing & runs the command in the background (not waited for): it cannot fail the operation
  const background = command.endsWith('&') && !METACHARS.test(command.slice(0, -1));
  if (METACHARS.test(command) && !background) argv = ['/bin/sh', '-c', command];
  else argv = (background ? command.slice(0, -1) : command).split(/[ \t\f\v\r\n]+/).filter(Boolean);
  if (!argv.length) return true;
  const comline = argv.join(' ');
  logHook(j, phase, comline, now);
  const r: ShellResult = run({ state, now, root: inJail ? (j.path ?? '/') : '/' }, argv, '');
  let stderr = r.stderr;
  // execvp of a file that cannot run: command.c prints the errno itself
  if (argv[0] !== '/bin/sh' && (r.code === 127 || r.code === 126))
    stderr = `jail: ${j.name}: exec ${argv[0]}: ${r.code === 127 ? 'No such file or directory' : 'Permission denied'}\n`;
  const log = inJail ? params.get('exec.consolelog')?.at(-1) : undefined;
  if (log) {
    if (r.stdout || stderr) writeFile(state, log, (readFile(state, log) ?? '') + r.stdout + stderr, undefined, true);
  } else {
    out.stdout += r.stdout;
    out.stderr += stderr;
  }
  if (r.code === 0 || background) return true;
  out.stderr += `jail: ${j.name}: ${comline}: failed\n`;
  return false;
}

function runPhase(state: SimHost, now: number, j: SimJail, phase: string, params: JailParams, out: Outcome): boolean {
  for (const command of params.get(`exec.${phase}`) ?? []) if (!runOne(state, now, j, phase, params, command, out)) return false;
  return true;
}

/**
 * A jail that is not `persist` and runs no process has no kernel record: `jail -r` (jail.c, remove via
 * jail_remove(2)) or a failed create leaves nothing of it — only its conf file, which is the host's. A jail
 * the seed describes keeps its record (the seed's description of it); one the kernel learned of at `jail -c`
 * (createdByJail), and its command log, goes.
 */
function forgetRemoved(state: SimHost, j: SimJail): void {
  if (!j.createdByJail || j.state === 'running') return;
  const all = jailsOf(state);
  const i = all.indexOf(j);
  if (i >= 0) all.splice(i, 1);
}

const result = (out: Outcome, code: number) => ({ code, stdout: out.stdout, stderr: out.stderr });

/** `jail -c`: the create sequence of jail.c startcommands[]. */
export function createJail(state: SimHost, now: number, file: string, name: string): { code: number; stdout: string; stderr: string } {
  const text = readFile(state, file);
  if (text === null) return { code: 1, stdout: '', stderr: `jail: ${file}: No such file or directory\n` };
  const params = readJailParams(text, file, name);
  if (typeof params === 'string') return { code: 1, stdout: '', stderr: `${params}\n` };
  let j = findSimJail(state, name);
  if (j?.state === 'running') return { code: 1, stdout: '', stderr: `jail: "${name}" already exists\n` };
  const path = params.get('path')?.at(-1) ?? '';
  if (!path.startsWith('/')) return { code: 1, stdout: '', stderr: `jail: ${name}: path ${path}: not an absolute pathname\n` };
  if (!j) {
    // a jail that came to this host with its conf (e.g. a migration): the kernel learns of it now
    j = { ctid: Number(/^# hostmgr:.*\bctid=(\d+)/m.exec(text)?.[1]) || 0, name, materialized: true, state: 'stopped', createdByJail: true };
    jailsOf(state).push(j);
  }
  j.path = path.replace(/\/+$/, '') || '/';
  j.hostname = params.get('host.hostname')?.at(-1) ?? name;
  const out: Outcome = { stdout: '', stderr: '' };
  if (!runPhase(state, now, j, 'prestart', params, out)) {
    forgetRemoved(state, j);
    return result(out, 1);
  }
  markRunning(state, j);
  out.stdout += `${name}: created\n`;
  if (!runPhase(state, now, j, 'start', params, out) || !runPhase(state, now, j, 'poststart', params, out)) {
    // create_failed: walk back — the jail is removed again (the exec.start/poststart commands are not undone)
    markStopped(j);
    forgetRemoved(state, j);
    out.stdout += `${name}: removed\n`;
    return result(out, 1);
  }
  return result(out, 0);
}

/** `jail -r` / `-R`: the remove sequence of jail.c stopcommands[]; -R (or no conf file) runs no commands. */
export function removeJail(state: SimHost, now: number, file: string, name: string, useConf: boolean) {
  const j = findSimJail(state, name);
  if (!j || j.state !== 'running') return { code: 1, stdout: '', stderr: `jail: "${name}" not found\n` };
  const docf = useConf && isFile(state, file);
  let params: JailParams = new Map();
  if (docf) {
    const read = readJailParams(readFile(state, file)!, file, name);
    if (typeof read === 'string') return { code: 1, stdout: '', stderr: `${read}\n` };
    params = read;
  }
  const out: Outcome = { stdout: '', stderr: '' };
  if (!runPhase(state, now, j, 'prestop', params, out) || !runPhase(state, now, j, 'stop', params, out)) return result(out, 1);
  markStopped(j);
  if (docf) out.stdout += `${name}: removed\n`;
  const ok = runPhase(state, now, j, 'poststop', params, out);
  forgetRemoved(state, j);
  return result(out, ok ? 0 : 1);
}

function jail(ctx: CommandContext) {
  const o = getopt(ctx.args, 'cdf:hiJ:lmn:p:qrRs:u:U:v');
  const [name] = o.operands;
  if (!name || o.operands.length !== 1) return fail('usage: jail [-dqv] [-f file] -[cmr] [jail]', 1);
  const file = o.values.get('f') ?? '/etc/jail.conf';
  if (o.flags.has('c')) return createJail(ctx.state, ctx.now, file, name);
  if (o.flags.has('r') || o.flags.has('R')) return removeJail(ctx.state, ctx.now, file, name, !o.flags.has('R'));
  return fail('usage: jail [-dqv] [-f file] -[cmr] [jail]', 1);
}

registerCommand('jail', withUsage(jail, "\tjail [-dqv] [-f file] -[cmr] [jail]\n\tjail [-qv] [-f file] -[rR] ['*' | jail ...]"));

/**
 * A reboot: every jail is gone, with its rctl rules (kernel state). Then rc.d/jail (libexec/rc/rc.d/jail), when
 * jail_enable is YES: with jail_list empty it runs `jail -f /etc/jail.conf -c` (only that file's jails); with a
 * jail_list, each named jail from /etc/jail.<name>.conf, else /etc/jail.conf.d/<name>.conf, else
 * /etc/jail.conf. A jail that fails to start stays stopped. The agent does not set jail_enable/jail_list.
 */
registerBootHook('jails', (state, now) => {
  for (const j of jailsOf(state)) if (j.state === 'running') markStopped(j);
  delete (state as SimHost & { lastJid?: number }).lastJid; // a new kernel hands out jids from 1 again
  state.rctlRules = [];
  if (!rcEnabled(state, 'jail_enable')) return;
  const list = (rcConf(state).jail_list ?? '').split(/\s+/).filter(Boolean);
  if (!list.length) {
    const text = readFile(state, '/etc/jail.conf');
    if (text === null) return;
    for (const m of text.matchAll(/^\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*\{/gm)) createJail(state, now, '/etc/jail.conf', m[1]);
    return;
  }
  for (const raw of list) {
    const name = raw.replace(/[/.]/g, '_');
    const file = [`/etc/jail.${name}.conf`, `/etc/jail.conf.d/${name}.conf`, '/etc/jail.conf'].find((f) => isFile(state, f));
    if (file) createJail(state, now, file, name);
  }
});
