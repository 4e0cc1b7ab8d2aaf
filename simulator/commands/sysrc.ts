import { parseShellAssignments } from '../boot.ts';
import { readFile, writeFile } from '../file-tree.ts';
import { registerCommand, type CommandOutput } from '../registry.ts';

/**
 * sysrc(8) (usr.sbin/sysrc/sysrc, bsdconfig's sysrc.subr): `sysrc name=value` sets the variable in the last of
 * rc_conf_files that assigns it, else appends `name="value"` to /etc/rc.conf, and prints `name: before -> after`
 * (before from /etc/defaults/rc.conf when no file sets it); `sysrc name` prints `name: value`, `-n` the value
 * alone; a variable set nowhere is `sysrc: unknown variable 'name'` and exit 1 (`-i` quiet and 0, `-q` quiet).
 * `-f file` replaces rc_conf_files. The simulator has no /etc/defaults/rc.conf unless a host's files hold one:
 * then the few defaults below (libexec/rc/rc.conf's values) stand in for it.
 *
 * `-x name` (f_sysrc_delete): every assignment to name is removed from each rc_conf_files file that exists
 * (awk filters the file into a temporary one, which replaces it: a file left with no lines stays, empty); it
 * prints nothing. `-F name` (f_sysrc_find): `name: file` of the last assignment, the rc_conf_files searched last
 * first, then the defaults file. Both refuse a variable set nowhere first, as a query does.
 */
const RC_CONF_FILES = ['/etc/rc.conf', '/etc/rc.conf.local'];
const RC_DEFAULTS = '/etc/defaults/rc.conf';
const FALLBACK_DEFAULTS: Record<string, string> = { ctld_enable: 'NO', jail_enable: 'NO', zfs_enable: 'NO', sshd_enable: 'NO' };

const ASSIGNMENT = (name: string) => new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=`);

registerCommand('sysrc', (ctx): CommandOutput => {
  const flags = new Set<string>();
  let files = RC_CONF_FILES;
  const operands: string[] = [];
  for (let i = 0; i < ctx.args.length; i++) {
    const a = ctx.args[i];
    if (operands.length || !a.startsWith('-')) operands.push(a);
    else if (a === '-f') files = (ctx.args[++i] ?? '').split(/\s+/).filter(Boolean);
    else for (const c of a.slice(1)) flags.add(c);
  }
  const defaults = readFile(ctx.state, RC_DEFAULTS);
  const rcValue = (name: string): string | undefined => {
    const vars = defaults === null ? { ...FALLBACK_DEFAULTS } : parseShellAssignments(defaults);
    for (const f of files) parseShellAssignments(readFile(ctx.state, f) ?? '', vars);
    return vars[name];
  };
  let stdout = '';
  let stderr = '';
  let code = 0;
  const assigns = (f: string, name: string) => (readFile(ctx.state, f) ?? '').split('\n').some((l) => ASSIGNMENT(name).test(l));
  // f_sysrc_find: rc_conf_files last to first, then the defaults (the file, or the table standing in for it)
  const findFile = (name: string): string =>
    [...files].reverse().find((f) => assigns(f, name)) ?? ((defaults === null ? name in FALLBACK_DEFAULTS : assigns(RC_DEFAULTS, name)) ? RC_DEFAULTS : '');
  // f_sysrc_delete: each existing file that assigns the name loses those lines; 1 when a file cannot be written
  const remove = (name: string): number => {
    for (const f of files) {
      const text = readFile(ctx.state, f);
      if (text === null || !assigns(f, name)) continue;
      const kept = text.split('\n').filter((l) => !ASSIGNMENT(name).test(l));
      if (!writeFile(ctx.state, f, kept.join('\n'), undefined, true)) {
        stderr += `sysrc: ${f}: Permission denied\n`;
        return 1;
      }
    }
    return 0;
  };
  for (const op of operands) {
    const eq = op.indexOf('=');
    if (flags.has('x') && eq >= 0) {
      code = Math.max(code, remove(op.slice(0, eq)));
      continue;
    }
    if (eq < 0) {
      const v = rcValue(op);
      if (v === undefined) {
        if (!flags.has('i') && !flags.has('q')) stderr += `sysrc: unknown variable '${op}'\n`;
        code = 1;
        continue;
      }
      if (flags.has('x')) {
        code = Math.max(code, remove(op));
        continue;
      }
      if (flags.has('F')) {
        const where = findFile(op);
        stdout += flags.has('n') ? `${where}\n` : `${op}: ${where}\n`;
        continue;
      }
      stdout += flags.has('n') ? `${v}\n` : `${op}: ${v}\n`;
      continue;
    }
    const name = op.slice(0, eq);
    const value = op.slice(eq + 1);
    const before = rcValue(name) ?? '';
    const line = `${name}="${value}"`;
    const target = [...files].reverse().find((f) => (readFile(ctx.state, f) ?? '').split('\n').some((l) => ASSIGNMENT(name).test(l))) ?? files[0];
    const lines = (readFile(ctx.state, target) ?? '').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let last = -1;
    lines.forEach((l, k) => {
      if (ASSIGNMENT(name).test(l)) last = k;
    });
    if (last >= 0) lines[last] = line;
    else lines.push(line);
    if (!writeFile(ctx.state, target, `${lines.join('\n')}\n`, undefined, true)) {
      stderr += `sysrc: ${target}: Permission denied\n`;
      code = 1;
      continue;
    }
    stdout += flags.has('n') ? `${before} -> ${rcValue(name)}\n` : `${name}: ${before} -> ${rcValue(name)}\n`;
  }
  return { code, stdout, stderr };
});
