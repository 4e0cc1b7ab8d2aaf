import { getopt } from '../format.ts';
import { fail, registerCommand, registerSubcommand, withUsage, type CommandContext } from '../registry.ts';
import { readFile } from '../file-tree.ts';
import { ctldRejection } from './ctl-conf-check.ts';

/**
 * ctld(8) and its rc.d script: `ctld -t [-f file]` checks a ctl.conf (silent and 0 when it is accepted;
 * ctld's messages and 1 otherwise); `service ctld onestatus|onestart|onestop|onereload` (and the forms without
 * `one`) print rc.subr's lines. Start and reload read /etc/ctl.conf; a reload of a file ctld refuses keeps
 * the configuration it had (ctld logs the error and carries on). State: `ctld` of the host.
 */
const CONF = '/etc/ctl.conf';

function ctldState(ctx: CommandContext) {
  return (ctx.state.ctld ??= { running: false });
}

registerCommand(
  'ctld',
  withUsage(
    (ctx) => {
      const o = getopt(ctx.args, 'df:Rt');
      const file = o.values.get('f') ?? CONF;
      const text = readFile(ctx.state, file);
      if (text === null) return fail(`ctld: unable to open configuration file ${file}: No such file or directory`);
      const rejected = ctldRejection(text);
      if (rejected) return { code: 1, stderr: rejected };
      if (!o.flags.has('t')) return fail('ctld: ctld already running, pid: 1.');
      return {};
    },
    'ctld [-d][-f config-file]\n       ctld -t [-u][-f config-file]',
  ),
);

const pidOf = (ctx: CommandContext) => ctldState(ctx).pid ?? 1042;

function status(ctx: CommandContext) {
  return ctldState(ctx).running ? { stdout: `ctld is running as pid ${pidOf(ctx)}.\n` } : { code: 1, stdout: 'ctld is not running.\n' };
}

function start(ctx: CommandContext) {
  const s = ctldState(ctx);
  if (s.running) return { stdout: `ctld already running? (pid=${pidOf(ctx)}).\n` };
  const text = readFile(ctx.state, CONF) ?? '';
  const rejected = ctldRejection(text);
  if (rejected) return { code: 1, stdout: 'Starting ctld.\n', stderr: `${rejected}/etc/rc.d/ctld: WARNING: failed to start ctld\n` };
  Object.assign(s, { running: true, pid: pidOf(ctx), loaded: text });
  return { stdout: 'Starting ctld.\n' };
}

function stop(ctx: CommandContext) {
  const s = ctldState(ctx);
  if (!s.running) return { code: 1, stderr: 'ctld not running? (check /var/run/ctld.pid).\n' };
  s.running = false;
  return { stdout: `Stopping ctld.\nWaiting for PIDS: ${pidOf(ctx)}.\n` };
}

function reload(ctx: CommandContext) {
  const s = ctldState(ctx);
  if (!s.running) return { code: 1, stderr: 'ctld not running? (check /var/run/ctld.pid).\n' };
  const text = readFile(ctx.state, CONF) ?? '';
  // SIGHUP: ctld re-reads the file; one it refuses is logged to syslog and the running configuration stays
  if (!ctldRejection(text)) s.loaded = text;
  return { stdout: 'Reloading ctld config files.\n' };
}

const actions: Record<string, (ctx: CommandContext) => { code?: number; stdout?: string; stderr?: string }> = {
  status,
  onestatus: status,
  start,
  onestart: start,
  stop,
  onestop: stop,
  reload,
  onereload: reload,
};

registerSubcommand('service', 'ctld', (ctx) => {
  const [action] = ctx.args;
  const run = action === undefined ? undefined : actions[action];
  if (!run) return fail(`/etc/rc.d/ctld: unknown directive '${action ?? ''}'.\nUsage: /etc/rc.d/ctld [fast|force|one|quiet](start|stop|restart|rcvar|enable|disable|delete|enabled|describe|extracommands|reload|status|poll)`, 1);
  return run(ctx);
});
