import type { SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { fail, lookupCommand, registerCommand, registerTicker, withUsage, type CommandContext } from '../registry.ts';
import { isFile, readFile } from '../file-tree.ts';
import { parseHeader, parseJailConf, paramValue, paramValues, type ParsedConf } from '#agent/drivers/jail-conf';
import { expandName } from '#agent/drivers/jail-layout';
import { findSimJail, jailsOf, logHook, markRunning, markStopped, materialize, type SimJail } from './jail-model.ts';

/**
 * jail(8): `jail [-f conf] -c name` creates (starts) a jail, `-r name` removes (stops) it, running the conf's
 * exec.prestart/start/poststart and exec.prestop/stop/poststop commands in jail(8)'s order. Each command is
 * logged on the jail (`hookRuns`); a command naming a script file of the simulated host (inside the jail's
 * root for exec.start/exec.stop) is run line by line, and lines calling a simulated command that changes
 * kernel state (cpuset, rctl) take effect — so post-start limits pin a jail as on FreeBSD.
 */

// Seeded jails are laid out on the host before the first command sees it.
registerTicker('jails', (state) => {
  for (const j of jailsOf(state)) if (!j.materialized) materialize(state, j);
});

const EFFECTIVE = new Set(['cpuset', 'rctl']);

async function runScriptLines(ctx: CommandContext, script: string): Promise<void> {
  for (const raw of script.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const argv = line.split(/\s+/);
    const cmd = argv[0].slice(argv[0].lastIndexOf('/') + 1);
    if (!EFFECTIVE.has(cmd)) continue;
    const handler = lookupCommand(cmd);
    if (handler) await handler({ ...ctx, argv, args: argv.slice(1), stdin: '' });
  }
}

async function runPhase(ctx: CommandContext, conf: ParsedConf, j: SimJail, phase: string, root: string): Promise<void> {
  const inJail = phase === 'start' || phase === 'stop';
  for (const command of paramValues(conf, j.name, `exec.${phase}`)) {
    const expanded = expandName(command, j.name);
    logHook(j, phase, expanded, ctx.now);
    const [first, ...rest] = expanded.split(/\s+/);
    // `/bin/sh script` or the script itself
    const scriptPath = first.endsWith('/sh') && rest.length ? rest[0] : first;
    const hostPath = inJail ? `${root}${scriptPath}` : scriptPath;
    if (isFile(ctx.state, hostPath)) await runScriptLines(ctx, readFile(ctx.state, hostPath)!);
  }
}

function loadConf(state: SimHost, file: string, name: string): { conf: ParsedConf; text: string } | string {
  const text = readFile(state, file);
  if (text === null) return `jail: ${file}: No such file or directory`;
  let conf: ParsedConf;
  try {
    conf = parseJailConf(text);
  } catch (e) {
    return `jail: ${file}: ${(e as Error).message}`;
  }
  if (!conf.jails.some((b) => b.name === name)) return `jail: "${name}" not found`;
  return { conf, text };
}

async function jail(ctx: CommandContext) {
  const o = getopt(ctx.args, 'cmrRf:');
  const [name] = o.operands;
  if (!name || o.operands.length !== 1) return fail('usage: jail [-f file] -c | -r jail', 1);
  const file = o.values.get('f') ?? '/etc/jail.conf';
  if (o.flags.has('c')) {
    const loaded = loadConf(ctx.state, file, name);
    if (typeof loaded === 'string') return fail(loaded);
    let j = findSimJail(ctx.state, name);
    if (j?.state === 'running') return fail(`jail: ${name}: already exists`);
    if (!j) {
      // a jail that came to this host with its conf (e.g. a migration): the kernel learns of it now
      j = { ctid: Number(parseHeader(loaded.text).ctid) || 0, name, materialized: true, state: 'stopped' };
      jailsOf(ctx.state).push(j);
    }
    const root = expandName(paramValue(loaded.conf, name, 'path') ?? '', name).replace(/\/+$/, '');
    j.path = root;
    j.hostname = paramValue(loaded.conf, name, 'host.hostname') ?? name;
    await runPhase(ctx, loaded.conf, j, 'prestart', root);
    markRunning(ctx.state, j);
    await runPhase(ctx, loaded.conf, j, 'start', root);
    await runPhase(ctx, loaded.conf, j, 'poststart', root);
    return { stdout: `${name}: created\n` };
  }
  if (o.flags.has('r') || o.flags.has('R')) {
    const j = findSimJail(ctx.state, name);
    if (!j || j.state !== 'running') return fail(`jail: "${name}" not found`);
    const loaded = o.flags.has('R') ? null : loadConf(ctx.state, file, name);
    const conf = loaded && typeof loaded !== 'string' ? loaded.conf : null;
    const root = j.path ?? '';
    if (conf) await runPhase(ctx, conf, j, 'prestop', root);
    if (conf) await runPhase(ctx, conf, j, 'stop', root);
    markStopped(j);
    if (conf) await runPhase(ctx, conf, j, 'poststop', root);
    return { stdout: `${name}: removed\n` };
  }
  return fail('usage: jail [-f file] -c | -r jail', 1);
}

registerCommand('jail', withUsage(jail, '\tjail [-f file] -c jail\n\tjail [-f file] -r jail'));
