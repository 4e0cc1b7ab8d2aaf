import type { SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { registerCommand, withUsage, type CommandContext } from '../registry.ts';
import { registerScriptCommand, run, type ShellResult } from '../shell.ts';
import { runningJails } from './jail-model.ts';

/**
 * jexec(8) (usr.sbin/jexec/jexec.c): `jexec [-l] [-d dir] [-u user | -U user] jail [command …]` attaches to a
 * running jail found by jid or name (jail_getid: `jail "x" not found`) and runs the command there — without one,
 * the user's shell (/bin/sh here), reading its standard input. Inside the jail every path and symbolic link
 * resolves below the jail's root (chroot), which is what makes writing through a jail safe for the host.
 * The command runs through the simulator's small sh (../shell.ts).
 */
function jexec(state: SimHost, now: number, args: string[], stdin: string): ShellResult {
  // FreeBSD getopt stops at the first operand: what follows the jail is the command's own argv
  const first = args.findIndex((a, i) => !a.startsWith('-') && !(i > 0 && /^-[lnd]*[duU]$/.test(args[i - 1])));
  getopt(first < 0 ? args : args.slice(0, first), 'd:lnu:U:');
  const [name, ...command] = first < 0 ? [] : args.slice(first);
  if (name === undefined)
    return { code: 1, stdout: '', stderr: 'usage: jexec [-l] [-d working-directory] [[-U username] | [-u username]] jail [command ...]\n' };
  const j = runningJails(state).find((x) => x.name === name || String(x.jid) === name);
  if (!j) return { code: 1, stdout: '', stderr: `jexec: jail "${name}" not found\n` };
  return run({ state, now, root: j.path ?? '/' }, command.length ? command : ['/bin/sh'], stdin);
}

registerCommand(
  'jexec',
  withUsage(
    (ctx: CommandContext) => jexec(ctx.state, ctx.now, ctx.args, ctx.stdin),
    '\tjexec [-l] [-d working-directory] [[-U username] | [-u username]] jail [command ...]',
  ),
);
registerScriptCommand('jexec', (sh, argv, stdin) => jexec(sh.state, sh.now, argv.slice(1), stdin));
