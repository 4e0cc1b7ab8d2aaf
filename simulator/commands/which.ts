import { getopt } from '../format.ts';
import { locateProgram } from '../program-path.ts';
import { RC_PATH } from '../profiles.ts';
import { registerCommand, withUsage } from '../registry.ts';

/**
 * which(1), after usr.bin/which/which.c: each program is looked up in PATH (a name with a slash as given); the
 * first match is printed (`-a` all, `-s` nothing); nothing is printed for a program not found, and the exit
 * status is 1 if any was not found. The PATH is the one the command was run with.
 */
registerCommand(
  'which',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'as');
    if (!o.operands.length) return { code: 1, stderr: 'usage: which [-as] program ...\n' };
    let out = '';
    let code = 0;
    for (const name of o.operands) {
      const found = locateProgram(ctx.state, name, ctx.path ?? RC_PATH);
      if (!found) code = 1;
      else if (!o.flags.has('s')) out += `${found}\n`;
    }
    return { code, stdout: out };
  }, 'usage: which [-as] program ...'),
);
