import { getopt } from '../format.ts';
import { isDir, readFile, writeFile } from '../file-tree.ts';
import { fail, registerCommand, withUsage } from '../registry.ts';

/**
 * pwd_mkdb(8) (usr.sbin/pwd_mkdb/pwd_mkdb.c): builds pwd.db (no password hashes, mode 0644) and spwd.db (mode
 * 0600) from a master.passwd file, into `-d directory` (default /etc); `-p` also writes a V7-style passwd there.
 * The simulator keeps the databases as the lines they were made from (what getpwnam(3) would find in them);
 * a line that is not ten colon-separated fields fails as pwd_mkdb does.
 */
registerCommand(
  'pwd_mkdb',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'BCd:iLlpsu:N');
    const [file] = o.operands;
    if (!file || o.operands.length !== 1) return fail('usage: pwd_mkdb [-BCilLNp] [-d directory] [-s cachesize] [-u username] file', 1);
    const dir = (o.values.get('d') ?? '/etc').replace(/\/+$/, '') || '/';
    const text = readFile(ctx.state, file);
    if (text === null) return fail(`pwd_mkdb: ${file}: No such file or directory`, 1);
    if (!isDir(ctx.state, dir)) return fail(`pwd_mkdb: ${dir}/pwd.db.tmp: No such file or directory`, 1);
    const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    const bad = lines.findIndex((l) => l.split(':').length !== 10);
    if (bad >= 0) return fail(`pwd_mkdb: corrupted entry\npwd_mkdb: at line #${bad + 1}`, 1);
    const pub = lines
      .map((l) =>
        l
          .split(':')
          .map((f, i) => (i === 1 ? '*' : f))
          .join(':'),
      )
      .join('\n');
    writeFile(ctx.state, `${dir}/pwd.db`, `${pub}\n`, '644');
    writeFile(ctx.state, `${dir}/spwd.db`, `${lines.join('\n')}\n`, '600');
    if (o.flags.has('p'))
      writeFile(
        ctx.state,
        `${dir}/passwd`,
        `${lines
          .map((l) => {
            const f = l.split(':');
            return [f[0], '*', f[2], f[3], f[7], f[8], f[9]].join(':');
          })
          .join('\n')}\n`,
        '644',
      );
    return {};
  }, '\tpwd_mkdb [-BCilLNp] [-d directory] [-s cachesize] [-u username] file'),
);
