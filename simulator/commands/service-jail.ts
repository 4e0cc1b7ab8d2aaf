import type { SimHost } from '#shared/seed/host/schema';
import { fail, registerSubcommand, type CommandContext, type CommandOutput } from '../registry.ts';
import { isFile } from '../file-tree.ts';
import { rcConf, rcEnabled } from '../boot.ts';
import { createJail, removeJail } from './jail.ts';
import { findSimJail } from './jail-model.ts';

/**
 * `service jail start|stop|restart [name …]` (and the `one…` forms), as libexec/rc/rc.d/jail does it for named
 * jails: each name (`/` and `.` made `_`) finds its conf in parse_options' order — /etc/jail.<name>.conf,
 * /etc/jail.conf.d/<name>.conf, jail_conf (/etc/jail.conf) — and jail_start runs `jail -i -f <conf> -c <name>`,
 * jail_stop `jail -q -f <conf> -r <name>` for a jail that runs. Their output goes to a temp file: rc.d/jail
 * prints `Starting jails: <name>.` and, for a jail that failed, ` cannot start jail  "<name>": ` followed by
 * jail(8)'s output — and exits 0 either way (its exit status never says a jail failed; the agent therefore
 * runs jail(8) itself). A stop that leaves the jail running prints jail(8)'s output. Without names, jail_list
 * names them; with no jail_list (`_ALL`) this simulator models only the named form and says so.
 * rc.subr's run_rc_command: `start`/`stop`/`restart` without `one` need jail_enable=YES, else it prints
 * `Cannot 'start' jail. …` on stdout and exits 0.
 */
const RC = '/etc/rc.d/jail';

const confFor = (state: SimHost, name: string) =>
  [`/etc/jail.${name}.conf`, `/etc/jail.conf.d/${name}.conf`, rcConf(state).jail_conf ?? '/etc/jail.conf'].find((f) => isFile(state, f));

function start(ctx: CommandContext, names: string[]): CommandOutput {
  let stdout = 'Starting jails:';
  let stderr = '';
  for (const raw of names) {
    const name = raw.replace(/[/.]/g, '_');
    const conf = confFor(ctx.state, name);
    if (!conf) {
      stderr += `${RC}: WARNING: Invalid configuration for ${name} (no jail.conf, no hostname, or no path).  Jail ${name} was ignored.\n`;
      continue;
    }
    const r = createJail(ctx.state, ctx.now, conf, name);
    if (r.code === 0) stdout += ` ${name}`;
    else stdout += ` cannot start jail  "${name}": \n${r.stdout}${r.stderr}`;
  }
  return { stdout: `${stdout}.\n`, stderr };
}

function stop(ctx: CommandContext, names: string[]): CommandOutput {
  let stdout = 'Stopping jails:';
  let stderr = '';
  for (const raw of names) {
    const name = raw.replace(/[/.]/g, '_');
    const conf = confFor(ctx.state, name);
    if (!conf) {
      stderr += `${RC}: WARNING: Invalid configuration for ${name} (no jail.conf, no hostname, or no path).  Jail ${name} was ignored.\n`;
      continue;
    }
    if (findSimJail(ctx.state, name)?.state !== 'running') continue;
    stdout += ` ${name}`;
    // -q: jail(8) prints no "<name>: removed"; its output shows only when the jail still runs
    const r = removeJail(ctx.state, ctx.now, conf, name, true);
    if (findSimJail(ctx.state, name)?.state === 'running') stdout += r.stderr;
  }
  return { stdout: `${stdout}.\n`, stderr };
}

registerSubcommand('service', 'jail', (ctx) => {
  const [verb = '', ...given] = ctx.args;
  const one = verb.startsWith('one');
  const action = one ? verb.slice(3) : verb;
  if (!['start', 'stop', 'restart'].includes(action))
    return fail(
      `${RC}: unknown directive '${verb}'.\nUsage: ${RC} [fast|force|one|quiet](start|stop|restart|rcvar|enable|disable|delete|enabled|describe|extracommands|config|console|status)`,
      1,
    );
  if (!one && !rcEnabled(ctx.state, 'jail_enable'))
    return { stdout: `Cannot '${action}' jail. Set jail_enable to YES in /etc/rc.conf or use 'one${action}' instead of '${action}'.\n` };
  const names = given.length ? given : (rcConf(ctx.state).jail_list ?? '').split(/\s+/).filter(Boolean);
  if (!names.length) throw new Error('service jail without names and without jail_list (_ALL) is not modelled by the simulator');
  if (action === 'start') return start(ctx, names);
  if (action === 'stop') return stop(ctx, names);
  const a = stop(ctx, names);
  const b = start(ctx, names);
  return { stdout: `${a.stdout}${b.stdout}`, stderr: `${a.stderr ?? ''}${b.stderr ?? ''}` };
});
