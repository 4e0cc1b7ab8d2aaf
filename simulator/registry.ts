import type { SimHost } from '#shared/seed/host/schema';
import { BadPropertyError, UsageError } from './format.ts';

/**
 * The simulator's extension points. A command family lives in one file under ./commands/ that calls these
 * at import time; ./commands/index.ts imports every such file (add one line there). See README.md.
 */

export interface SimSettings {
  /** how long a resilver takes, simulated ms */
  resilverMs: number;
}

export interface CommandContext {
  /** the full argv; argv[0] may be a path (`/sbin/zpool`) */
  argv: string[];
  /** argv without the command (and, for subcommands, without the subcommand) */
  args: string[];
  stdin: string;
  /** the host's state; mutate it in place, the simulator persists what changed */
  state: SimHost;
  /** simulated time, Unix ms */
  now: number;
  settings: SimSettings;
  /** the PATH the command was run with (which(1) and nested commands look programs up in it) */
  path?: string;
}

export interface CommandOutput {
  code?: number;
  stdout?: string;
  stderr?: string;
}

export type CommandHandler = (ctx: CommandContext) => CommandOutput | Promise<CommandOutput>;

const commands = new Map<string, CommandHandler>();
const subcommands = new Map<string, Map<string, CommandHandler>>();
const tickers: { name: string; fn: (state: SimHost, now: number, settings: SimSettings) => void }[] = [];

/** Registers a command by its basename (`zpool`, `jls`). Re-registering replaces (useful in tests). */
export function registerCommand(name: string, handler: CommandHandler): void {
  commands.set(name, handler);
}

/**
 * Registers `<command> <sub>` (e.g. `zfs snapshot`) so that several files can each add subcommands to one
 * command. The command itself dispatches to them; see {@link dispatchSubcommands}.
 */
export function registerSubcommand(command: string, sub: string, handler: CommandHandler): void {
  let subs = subcommands.get(command);
  if (!subs) subcommands.set(command, (subs = new Map()));
  subs.set(sub, handler);
  if (!commands.has(command)) commands.set(command, dispatchSubcommands(command));
}

const invokeHooks = new Map<string, ((state: SimHost) => void)[]>();

/** Runs before every subcommand of `command` (a program's start-up effect, such as libzfs_init loading zfs.ko). */
export function registerInvokeHook(command: string, fn: (state: SimHost) => void): void {
  invokeHooks.set(command, [...(invokeHooks.get(command) ?? []), fn]);
}

/** A handler that runs the registered subcommand named by the first argument. */
export function dispatchSubcommands(command: string): CommandHandler {
  return (ctx) => {
    const [sub, ...rest] = ctx.args;
    if (sub !== undefined) for (const hook of invokeHooks.get(command) ?? []) hook(ctx.state);
    const handler = sub === undefined ? undefined : subcommands.get(command)?.get(sub);
    if (!handler) {
      const what = sub === undefined ? 'missing command' : `unrecognized command '${sub}'`;
      return { code: 2, stderr: `${what}\nusage: ${command} command args ...\n` };
    }
    return handler({ ...ctx, args: rest });
  };
}

/**
 * Registers a time-based process (a resilver finishing, a VM booting): it runs before every command with
 * the current simulated time and may change the state.
 */
export function registerTicker(name: string, fn: (state: SimHost, now: number, settings: SimSettings) => void): void {
  const i = tickers.findIndex((t) => t.name === name);
  if (i >= 0) tickers[i] = { name, fn };
  else tickers.push({ name, fn });
}

export function runTickers(state: SimHost, now: number, settings: SimSettings): void {
  for (const t of tickers) t.fn(state, now, settings);
}

const bootHooks: { name: string; fn: (state: SimHost, now: number) => void }[] = [];

/**
 * Registers what a (re)boot does to a part of the host (boot.ts runs them in order of registration, after the
 * loader's tunables are read into `kenv`): processes gone, rc.conf-enabled services started, `zfs mount -a` …
 */
export function registerBootHook(name: string, fn: (state: SimHost, now: number) => void): void {
  const i = bootHooks.findIndex((t) => t.name === name);
  if (i >= 0) bootHooks[i] = { name, fn };
  else bootHooks.push({ name, fn });
}

export function runBootHooks(state: SimHost, now: number): void {
  for (const h of bootHooks) h.fn(state, now);
}

export function lookupCommand(argv0: string): CommandHandler | undefined {
  return commands.get(argv0.slice(argv0.lastIndexOf('/') + 1));
}

export function registeredCommands(): string[] {
  return [...commands.keys()].sort();
}

/**
 * Wraps a handler so that a {@link UsageError} from getopt becomes the command's usage failure (exit 2),
 * and a {@link BadPropertyError} its message alone (exit 2).
 */
export function withUsage(handler: CommandHandler, usage: string): CommandHandler {
  return async (ctx) => {
    try {
      return await handler(ctx);
    } catch (e) {
      if (e instanceof BadPropertyError) return fail(e.message, 2);
      if (e instanceof UsageError) return { code: 2, stderr: `${e.message ? `${e.message}\n` : ''}usage:\n${usage}\n` };
      throw e;
    }
  };
}

/** A failure in the command's own words: `stderr` gets a trailing newline if missing. */
export function fail(message: string, code = 1): CommandOutput {
  return { code, stderr: message.endsWith('\n') ? message : `${message}\n` };
}
