import { getopt } from '../format.ts';
import { fail, registerCommand, withUsage, type CommandContext } from '../registry.ts';
import {
  chmod,
  fileMode,
  isDir,
  isFile,
  isLink,
  listDir,
  makeDirs,
  move,
  readFile,
  readLink,
  removeEmptyDir,
  removeFile,
  removeTree,
  symlink,
  writeFile,
} from '../file-tree.ts';

/**
 * The file commands drivers use to read and write host files through an executor, argv only (content on
 * stdin): cat, tee, mkdir, rm, rmdir, ls, chmod, mv, ln -s, readlink, stat -f, with FreeBSD's messages. Like the real
 * ones, cat, tee, chmod, ls and mkdir follow symbolic links in every component; rm, ln, readlink and stat (lstat
 * unless -L) act on a final link itself. State: ../file-tree.ts.
 */
const missing = (cmd: string, path: string) => `${cmd}: ${path}: No such file or directory`;

/**
 * devfs: /dev/zvol/<volume> is the device node OpenZFS makes for each volume (zvol_os.c, GEOM provider or
 * character device). The simulator makes it with the volume (zfs create -V returns before a real host's
 * minor exists: module/zfs/zvol.c runs zvol_create_minors on the pool's zvol taskq).
 */
const zvolNode = (state: CommandContext['state'], path: string) =>
  path.startsWith('/dev/zvol/') && state.datasets.some((d) => d.type === 'volume' && d.name === path.slice('/dev/zvol/'.length));

registerCommand('cat', (ctx: CommandContext) => {
  let out = '';
  let err = '';
  for (const p of ctx.args) {
    const c = readFile(ctx.state, p);
    if (c === null) err += `${isDir(ctx.state, p) ? `cat: ${p}: Is a directory` : missing('cat', p)}\n`;
    else out += c;
  }
  return { code: err ? 1 : 0, stdout: out, stderr: err };
});

registerCommand(
  'tee',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'ai');
    let err = '';
    for (const p of o.operands) {
      const content = o.flags.has('a') ? (readFile(ctx.state, p) ?? '') + ctx.stdin : ctx.stdin;
      if (isDir(ctx.state, p) && !isFile(ctx.state, p)) err += `tee: ${p}: Is a directory\n`;
      else if (!writeFile(ctx.state, p, content)) err += `${missing('tee', p)}\n`;
    }
    return { code: err ? 1 : 0, stdout: ctx.stdin, stderr: err };
  }, '\ttee [-ai] [file ...]'),
);

registerCommand(
  'mkdir',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'pm:v');
    for (const p of o.operands) {
      if (isFile(ctx.state, p)) return fail(`mkdir: ${p}: File exists`);
      if (!o.flags.has('p')) {
        if (isDir(ctx.state, p)) return fail(`mkdir: ${p}: File exists`);
        const parent = p.slice(0, p.lastIndexOf('/')) || '/';
        if (!isDir(ctx.state, parent)) return fail(missing('mkdir', p));
      }
      makeDirs(ctx.state, p);
    }
    return {};
  }, '\tmkdir [-pv] [-m mode] directory_name ...'),
);

registerCommand(
  'rm',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'dfiIPRrvWx');
    const recursive = o.flags.has('r') || o.flags.has('R');
    let err = '';
    for (const p of o.operands) {
      if (isLink(ctx.state, p) || isFile(ctx.state, p)) removeFile(ctx.state, p);
      else if (isDir(ctx.state, p)) {
        if (recursive) removeTree(ctx.state, p);
        else err += `rm: ${p}: is a directory\n`;
      } else if (!o.flags.has('f')) err += `${missing('rm', p)}\n`;
    }
    return { code: err ? 1 : 0, stderr: err };
  }, '\trm [-f | -i] [-dIPRrvWx] file ...'),
);

// bin/rmdir/rmdir.c: each operand with rmdir(2); a failure is warn()ed (`rmdir: <path>: <strerror>`), exit 1
registerCommand(
  'rmdir',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'pv');
    let err = '';
    const reason = { missing: 'No such file or directory', 'not-empty': 'Directory not empty', 'not-dir': 'Not a directory' } as const;
    for (const p of o.operands) {
      const r = removeEmptyDir(ctx.state, p);
      if (r !== 'ok') err += `rmdir: ${p}: ${reason[r]}\n`;
    }
    return { code: err ? 1 : 0, stderr: err };
  }, '\trmdir [-pv] directory ...'),
);

registerCommand(
  'ls',
  withUsage((ctx) => {
    const o = getopt(ctx.args, '1aAlF');
    const paths = o.operands.length ? o.operands : ['/'];
    let out = '';
    let err = '';
    for (const p of paths) {
      if (isFile(ctx.state, p) || zvolNode(ctx.state, p)) out += `${p}\n`;
      else if (isDir(ctx.state, p))
        out += listDir(ctx.state, p)
          .map((n) => `${n}\n`)
          .join('');
      else err += `${missing('ls', p)}\n`;
    }
    return { code: err ? 1 : 0, stdout: out, stderr: err };
  }, '\tls [-1AaFl] [file ...]'),
);

registerCommand('chmod', (ctx) => {
  const [mode, ...paths] = ctx.args;
  if (!mode || !/^[0-7]{3,4}$/.test(mode) || !paths.length) return fail('usage: chmod [-fhv] [-R [-H | -L | -P]] mode file ...');
  for (const p of paths) if (!chmod(ctx.state, p, mode)) return fail(missing('chmod', p));
  return {};
});

// bin/cp/cp.c + utils.c copy_file: one regular file onto a file path or into a directory; a new file gets the
// source's mode (less the umask, 022 for root), an existing target keeps its own
registerCommand('cp', (ctx) => {
  const o = getopt(ctx.args, 'fHilLnPpRrsvx');
  const [from, to] = o.operands;
  if (!from || !to || o.operands.length !== 2) return fail('usage: cp [-R [-H | -L | -P]] [-f | -i | -n] [-alpsvx] source_file target_file');
  const content = readFile(ctx.state, from);
  if (content === null) return fail(isDir(ctx.state, from) ? `cp: ${from} is a directory (not copied).` : `cp: ${from}: No such file or directory`);
  const target = isDir(ctx.state, to) ? `${to.replace(/\/+$/, '')}/${from.slice(from.lastIndexOf('/') + 1)}` : to;
  const mode = isFile(ctx.state, target) ? undefined : (parseInt(fileMode(ctx.state, from) ?? '644', 8) & ~0o022).toString(8);
  if (!writeFile(ctx.state, target, content, mode)) return fail(`cp: ${target}: No such file or directory`);
  return {};
});

registerCommand('mv', (ctx) => {
  const [from, to] = ctx.args;
  if (!from || !to || ctx.args.length !== 2) return fail('usage: mv [-f | -i | -n] [-hv] source target');
  if (!move(ctx.state, from, to)) return fail(`mv: ${from}: No such file or directory`);
  return {};
});

// bin/ln/ln.c: `ln -s target link`; an existing link name is EEXIST unless -f (replace), -h/-n keep a final link as is
registerCommand(
  'ln',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'fhinsvFLPw');
    const [target, path] = o.operands;
    if (!o.flags.has('s') || !target || !path || o.operands.length !== 2) return fail('usage: ln -s [-Ffhinvw] source_file [target_file]');
    if (o.flags.has('f') && isLink(ctx.state, path)) removeFile(ctx.state, path);
    const r = symlink(ctx.state, target, path);
    if (r === 'exists') return fail(`ln: ${path}: File exists`);
    if (r === 'missing') return fail(`ln: ${path}: No such file or directory`);
    return {};
  }, '\tln [-s [-F] | -L | -P] [-f | -i] [-hnv] source_file [target_file]'),
);

// usr.bin/readlink is stat(1) in readlink mode: prints the target; a path that is not a link fails silently (exit 1)
registerCommand('readlink', (ctx) => {
  const o = getopt(ctx.args, 'fn');
  let out = '';
  let code = 0;
  for (const p of o.operands) {
    const t = readLink(ctx.state, p);
    if (t === null) code = 1;
    else out += o.flags.has('n') ? t : `${t}\n`;
  }
  return { code, stdout: out };
});

/** usr.bin/stat/stat.c `%HT`: the file type in words; without -L the link itself (lstat). */
function fileType(ctx: CommandContext, p: string, follow: boolean): string | null {
  if (!follow && isLink(ctx.state, p)) return 'Symbolic Link';
  if (isFile(ctx.state, p)) return 'Regular File';
  if (isDir(ctx.state, p)) return 'Directory';
  return null;
}

registerCommand(
  'stat',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'f:FlLnqrst:x');
    const format = o.values.get('f');
    if (format === undefined || !/^(%HT|%N|%Y)(\s+(%HT|%N|%Y))*$/.test(format)) return fail('stat: only -f with %HT, %N and %Y is simulated', 64);
    let out = '';
    let err = '';
    for (const p of o.operands) {
      const type = fileType(ctx, p, o.flags.has('L'));
      if (type === null) {
        if (!o.flags.has('q')) err += `stat: ${p}: ${o.flags.has('L') ? 'stat' : 'lstat'}: No such file or directory\n`;
        continue;
      }
      out += `${format.replace(/%HT|%N|%Y/g, (f) => (f === '%HT' ? type : f === '%N' ? p : (readLink(ctx.state, p) ?? '')))}\n`;
    }
    return { code: err ? 1 : 0, stdout: out, stderr: err };
  }, '\tstat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file|handle ...]'),
);
