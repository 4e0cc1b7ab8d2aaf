import { fail, lookupCommand, registerCommand, type CommandContext, type CommandOutput } from '../registry.ts';
import { locateProgram } from '../program-path.ts';

/**
 * env(1) (usr.bin/env/env.c main): options first (`-i` empties the environment, `-u name` drops one variable,
 * `-P altpath` is where the utility is searched instead of PATH), then `name=value` operands set variables,
 * then the utility is run with execvp(3) — through the new PATH when one was set — and a utility that cannot be
 * found is `err(127, "%s", utility)`: `env: <utility>: No such file or directory`. Without a utility env prints
 * the environment. The simulator keeps no process environment beyond PATH, so that listing is PATH (unless -i)
 * and the variables set here. The agent's SSH executor runs every command as `env PATH=… <argv>` so that it gets
 * the PATH the agent's service would have, not the login's.
 */
const USAGE = 'usage: env [-0iv] [-L|-U user[/class]] [-P utilpath] [-S string] [-u name]\n           [name=value ...] [utility [argument ...]]';

function env(ctx: CommandContext): CommandOutput | Promise<CommandOutput> {
  const args = ctx.args;
  let clean = false;
  let altpath: string | undefined;
  const unset = new Set<string>();
  let i = 0;
  // getopt(3) as env.c calls it: options end at the first operand or `--`; `-` alone is the old form of -i
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-') {
      clean = true;
      continue;
    }
    if (!a.startsWith('-')) break;
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (c === 'i') clean = true;
      else if (c === 'u' || c === 'P') {
        const v = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        if (v === undefined) return fail(`env: option requires an argument -- ${c}\n${USAGE}`, 1);
        if (c === 'u') unset.add(v);
        else altpath = v;
        break;
      } else return fail(`env: illegal option -- ${c}\n${USAGE}`, 1);
    }
  }
  const vars = new Map<string, string>(clean || ctx.path === undefined ? [] : [['PATH', ctx.path]]);
  for (const name of unset) vars.delete(name);
  for (; i < args.length && args[i].includes('='); i++) {
    const eq = args[i].indexOf('=');
    vars.set(args[i].slice(0, eq), args[i].slice(eq + 1));
  }
  const argv = args.slice(i);
  if (!argv.length) return { stdout: [...vars].map(([k, v]) => `${k}=${v}\n`).join('') };
  // execvp(3) searches the new environment's PATH (env.c: `-P` searches altpath instead); no PATH at all is
  // _PATH_DEFPATH, /usr/bin:/bin
  const path = altpath ?? vars.get('PATH') ?? '/usr/bin:/bin';
  const handler = lookupCommand(argv[0]);
  if (!handler || !locateProgram(ctx.state, argv[0], path)) return fail(`env: ${argv[0]}: No such file or directory`, 127);
  return handler({ ...ctx, argv, args: argv.slice(1), path: vars.get('PATH') ?? path });
}

registerCommand('env', env);
