import { fileSize, isDir, truncateFile } from '../file-tree.ts';
import { fail, registerCommand, type CommandContext, type CommandOutput } from '../registry.ts';

/**
 * truncate(1) (usr.bin/truncate/truncate.c): `truncate [-c] -s [+|-|%|/]size[K|k|M|m|G|g|T|t] file ...` or
 * `-r rfile`. The size goes through expand_number(3) (a suffix is a power of 1024); `+`/`-` grow or shrink by it,
 * `%` rounds up and `/` down to a multiple of it (never below 0). A missing file is created (open O_CREAT,
 * mode 0644 under the usual umask) unless `-c`; each file that cannot be opened is a warning
 * (`truncate: <file>: No such file or directory`) and exit 1 at the end. The file is sparse: the simulator
 * keeps its length, not its zeros (file-tree.ts `sizeBytes`) — what a file vdev for `zpool create` needs.
 */
const USAGE = 'usage: truncate [-c] -s [+|-|%|/]size[K|k|M|m|G|g|T|t] file ...\n       truncate [-c] -r rfile file ...';
const UNITS: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40, p: 2 ** 50, e: 2 ** 60 };

function truncate(ctx: CommandContext): CommandOutput {
  let noCreate = false;
  let sizeArg: string | undefined;
  let rfile: string | undefined;
  const operands: string[] = [];
  const args = ctx.args;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-' || operands.length) {
      operands.push(a);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (c === 'c') noCreate = true;
      else if (c === 's' || c === 'r') {
        const v = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        if (v === undefined) return fail(`truncate: option requires an argument -- ${c}\n${USAGE}`);
        if (c === 's') sizeArg = v;
        else rfile = v;
        break;
      } else return fail(`truncate: illegal option -- ${c}\n${USAGE}`);
    }
  }
  // exactly one of -s and -r, and at least one file
  if ((sizeArg === undefined) === (rfile === undefined) || !operands.length) return fail(USAGE);
  let op = '';
  let amount = 0;
  if (rfile !== undefined) {
    const len = fileSize(ctx.state, rfile);
    if (len === null) return fail(`truncate: ${rfile}: No such file or directory`);
    amount = len;
  } else {
    const m = /^([-+%/]?)(\d+)([KkMmGgTtPpEe]?)$/.exec(sizeArg!);
    if (!m) return fail(`truncate: invalid size argument \`${sizeArg}'`);
    op = m[1];
    amount = Number(m[2]) * UNITS[m[3].toLowerCase()];
    if ((op === '%' || op === '/') && amount === 0) return fail(`truncate: invalid size argument \`${sizeArg}'`);
  }
  let err = '';
  for (const file of operands) {
    const cur = fileSize(ctx.state, file);
    if (cur === null) {
      if (noCreate) continue;
      if (isDir(ctx.state, file)) {
        err += `truncate: ${file}: Is a directory\n`;
        continue;
      }
    }
    const now = cur ?? 0;
    let size = amount;
    if (op === '+') size = now + amount;
    else if (op === '-') size = Math.max(0, now - amount);
    else if (op === '%') size = Math.ceil(now / amount) * amount;
    else if (op === '/') size = Math.floor(now / amount) * amount;
    if (!truncateFile(ctx.state, file, size)) err += `truncate: ${file}: No such file or directory\n`;
  }
  return { code: err ? 1 : 0, stderr: err };
}

registerCommand('truncate', truncate);
