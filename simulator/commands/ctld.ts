import { rcEnabled } from '../boot.ts';
import { readFile } from '../file-tree.ts';
import { profileOf } from '../profiles.ts';
import { fail, registerBootHook, registerCommand, registerSubcommand, type CommandContext, type CommandOutput } from '../registry.ts';
import { applyToKernel } from './ctl-kernel.ts';
import { ctlConfRefusal, readCtlConf } from './ctl-conf-reader.ts';

/**
 * ctld(8) and its rc.d script (libexec/rc/rc.d/ctld: rcvar ctld_enable, required_files /etc/ctl.conf,
 * extra_commands reload), following usr.sbin/ctld/ctld.c main():
 * - options by the host's getopt string (profile `ctldOptions`): an unknown one is libc getopt's
 *   `ctld: illegal option -- x` and usage() — two lines, exit 1;
 * - the file is read and verified with the host's grammar (./ctl-conf-reader.ts, profile `ctlConfGrammar`); a refusal is
 *   `configuration error; exiting`, exit 1, before anything else; `-t` stops there (warnings still printed);
 * - start applies it to the kernel (./ctl-kernel.ts). The 14.x ctld applies before daemon(3): a failure is
 *   `failed to apply configuration; exiting` and `service` fails. The 15.x ctld daemonizes first (profile
 *   `ctldDaemonizesBeforeApply`): `service ctld onestart` exits 0, and ctld then exits, its messages only in syslog;
 * - reload is SIGHUP: a refused file is only logged (`configuration error, continuing with old configuration`),
 *   an apply failure logged (`failed to reload configuration`), and `service` exits 0 either way.
 * State: `ctld` of the host.
 */
const CONF = '/etc/ctl.conf';
const RC = '/etc/rc.d/ctld';
const USAGE = 'usage: ctld [-d][-u][-f config-file]\n       ctld -t [-u][-f config-file]\n';

const ctldState = (ctx: Pick<CommandContext, 'state'>) => (ctx.state.ctld ??= { running: false });

/** libc getopt(3) with ctld's option string, stopping at the first operand */
function parseCtldArgs(args: string[], spec: string): { flags: Set<string>; file?: string; error?: string } {
  const flags = new Set<string>();
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return args.length > i + 1 ? { flags, error: USAGE } : { flags, file };
    if (!a.startsWith('-') || a === '-') return { flags, error: USAGE };
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      const at = spec.indexOf(c);
      if (c === ':' || at < 0) return { flags, error: `ctld: illegal option -- ${c}\n${USAGE}` };
      if (spec[at + 1] === ':') {
        const v = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        if (v === undefined) return { flags, error: `ctld: option requires an argument -- ${c}\n${USAGE}` };
        file = v;
        break;
      }
      flags.add(c);
    }
  }
  return { flags, file };
}

/** ctld's refusal of a text on this host, or null */
const ctldRejection = (state: CommandContext['state'], text: string) => ctlConfRefusal(text, profileOf(state).ctlConfGrammar);

/** what ctld logs about an accepted file */
function ctldWarnings(state: CommandContext['state'], text: string): string {
  return readCtlConf(text, profileOf(state).ctlConfGrammar)
    .warnings.map((w) => `ctld: ${w}\n`)
    .join('');
}

registerCommand('ctld', (ctx) => {
  const o = parseCtldArgs(ctx.args, profileOf(ctx.state).ctldOptions);
  if (o.error) return { code: 1, stderr: o.error };
  const file = o.file ?? CONF;
  const text = readFile(ctx.state, file);
  if (text === null) return fail(`ctld: unable to open configuration file ${file}: No such file or directory\nctld: configuration error; exiting`);
  const rejected = ctldRejection(ctx.state, text);
  if (rejected) return { code: 1, stderr: rejected };
  if (o.flags.has('t')) return { stderr: ctldWarnings(ctx.state, text) };
  if (ctldState(ctx).running) return fail(`ctld: daemon already running, pid: ${pidOf(ctx)}.`);
  return start(ctx);
});

// reads: a host that never ran ctld has no ctld state, and asking about it must not give it one
const pidOf = (ctx: Pick<CommandContext, 'state'>) => ctx.state.ctld?.pid ?? 1042;

function status(ctx: CommandContext): CommandOutput {
  return ctx.state.ctld?.running ? { stdout: `ctld is running as pid ${pidOf(ctx)}.\n` } : { code: 1, stdout: 'ctld is not running.\n' };
}

function start(ctx: Pick<CommandContext, 'state'>): CommandOutput {
  const s = ctldState(ctx);
  if (s.running) return { stdout: `ctld already running? (pid=${pidOf(ctx)}).\n` };
  const text = readFile(ctx.state, CONF);
  if (text === null) return { code: 1, stderr: `${RC}: WARNING: ${CONF} is not readable.\n` };
  const rejected = ctldRejection(ctx.state, text);
  if (rejected) return { code: 1, stdout: 'Starting ctld.\n', stderr: `${rejected}${RC}: WARNING: failed to start ctld\n` };
  const warnings = ctldWarnings(ctx.state, text);
  const errors = applyToKernel(ctx.state, text);
  s.loaded = text;
  if (errors.length) {
    s.running = false;
    // 15.x: daemon(3) came first, so these lines went to syslog and the rc script saw success
    if (profileOf(ctx.state).ctldDaemonizesBeforeApply) return { stdout: 'Starting ctld.\n', stderr: warnings };
    const log = [...errors, 'failed to apply configuration; exiting'].map((l) => `ctld: ${l}\n`).join('');
    return { code: 1, stdout: 'Starting ctld.\n', stderr: `${warnings}${log}${RC}: WARNING: failed to start ctld\n` };
  }
  Object.assign(s, { running: true, pid: pidOf(ctx) });
  return { stdout: 'Starting ctld.\n', stderr: warnings };
}

function stop(ctx: CommandContext): CommandOutput {
  const s = ctldState(ctx);
  if (!s.running) return { code: 1, stderr: `ctld not running? (check /var/run/ctld.pid).\n` };
  s.running = false;
  // SIGTERM: ctld applies an empty configuration (its LUNs and ports leave the kernel), then exits (ctld.c main
  // loop: sigterm_received → conf_apply of an empty conf): nothing it loaded, nor its pid, remains, and CTL holds
  // nothing of it — the state of a ctld that is not running (a stopped ctld's CTL reads as empty, ctl-kernel.ts)
  delete s.loaded;
  delete s.pid;
  delete s.kernel;
  return { stdout: `Stopping ctld.\nWaiting for PIDS: ${pidOf(ctx)}.\n` };
}

function reload(ctx: CommandContext): CommandOutput {
  const s = ctldState(ctx);
  if (!s.running) return { code: 1, stderr: 'ctld not running? (check /var/run/ctld.pid).\n' };
  const text = readFile(ctx.state, CONF) ?? '';
  // SIGHUP: a refused file is logged ("configuration error, continuing with old configuration") and ignored;
  // an accepted one is applied as far as it goes ("failed to reload configuration" for the rest)
  if (!ctldRejection(ctx.state, text)) {
    applyToKernel(ctx.state, text);
    s.loaded = text;
  }
  return { stdout: 'Reloading ctld config files.\n' };
}

/**
 * rc.subr run_rc_command: the forms without `one` act only when rc.conf enables the service; otherwise they print
 * this on stdout and exit 0.
 */
const enabledOnly =
  (verb: string, fn: (ctx: CommandContext) => CommandOutput) =>
  (ctx: CommandContext): CommandOutput =>
    rcEnabled(ctx.state, 'ctld_enable')
      ? fn(ctx)
      : { stdout: `Cannot '${verb}' ctld. Set ctld_enable to YES in /etc/rc.conf or use 'one${verb}' instead of '${verb}'.\n` };

const actions: Record<string, (ctx: CommandContext) => CommandOutput> = {
  status: enabledOnly('status', status),
  onestatus: status,
  start: enabledOnly('start', start),
  onestart: start,
  stop: enabledOnly('stop', stop),
  onestop: stop,
  reload: enabledOnly('reload', reload),
  onereload: reload,
};

registerSubcommand('service', 'ctld', (ctx) => {
  const [action] = ctx.args;
  const run = action === undefined ? undefined : actions[action];
  if (!run)
    return fail(
      `${RC}: unknown directive '${action ?? ''}'.\nUsage: ${RC} [fast|force|one|quiet](start|stop|restart|rcvar|enable|disable|delete|enabled|describe|extracommands|reload|status|poll)`,
      1,
    );
  return run(ctx);
});

// at boot no ctld runs and CTL is empty; rc starts ctld when rc.conf enables it
registerBootHook('ctld', (state) => {
  state.ctld = { running: false, kernel: { luns: [], ports: [] } };
  if (rcEnabled(state, 'ctld_enable')) start({ state });
});
