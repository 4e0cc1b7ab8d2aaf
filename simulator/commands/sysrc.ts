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
 *
 * Setting a variable a file assigns (f_sysrc_set): the file is reversed (`tail -r`) into a command substitution,
 * f_sysrc_set_awk rewrites the first match there — the last assignment — and the result is reversed back, so the
 * file ends in one newline and loses its leading empty lines (the substitution strips them as trailing ones).
 * The awk keeps what surrounds the value: leading blanks, a single- or double-quoted value's quotes, and what
 * follows it (`ctld_enable="NO"  # iSCSI` → `ctld_enable="YES"  # iSCSI`); an unquoted value becomes
 * double-quoted; a value starting with a backquote, `$` or a backslash is left alone and `name="value"` appended
 * after the file. A variable only the defaults set, or none, is appended with `echo >>`: straight after the file's
 * last byte, newline or not.
 */
const RC_CONF_FILES = ['/etc/rc.conf', '/etc/rc.conf.local'];
const RC_DEFAULTS = '/etc/defaults/rc.conf';
const FALLBACK_DEFAULTS: Record<string, string> = { ctld_enable: 'NO', jail_enable: 'NO', zfs_enable: 'NO', sshd_enable: 'NO' };

const ASSIGNMENT = (name: string) => new RegExp(`^\\s*${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=`);

/** A file's lines as awk reads them: a final newline ends the last line rather than starting another. */
const records = (text: string): string[] => {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/**
 * f_sysrc_set_awk on the line of the last assignment: the new value inside the old value's quotes, the text after
 * the old value kept; null for a value sysrc leaves alone (a backquote, `$` or backslash first). A value that is
 * empty (`name=`) has no first character to take as quote: awk's `%c` of an empty string, written as nothing here.
 */
function setAssignment(line: string, name: string, value: string): string | null {
  const head = ASSIGNMENT(name).exec(line)![0];
  let rest = line.slice(head.length);
  const first = rest.charAt(0);
  let [open, close] = [first, first];
  if (/[`$\\]/.test(first)) return null;
  if (first === "'" || first === '"') {
    // a double-quoted value may hold backslash-escaped quotes: `^"(.*\\+")*[^"]*`
    rest = rest.replace(first === "'" ? /^'[^']*/ : /^"(.*\\+")*[^"]*/, '');
    if (rest === '') close = '';
    rest = rest.slice(1);
  } else if (/[^\s;]/.test(first)) {
    [open, close] = ['"', '"'];
    rest = rest.replace(/^\S*/, '');
  } else if (first !== '') [open, close] = ['"', '"'];
  return `${head}${open}${value}${close}${rest}`;
}

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
      // awk prints each line it keeps with its newline
      const kept = records(text).filter((l) => !ASSIGNMENT(name).test(l));
      if (!writeFile(ctx.state, f, kept.map((l) => `${l}\n`).join(''), undefined, true)) {
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
    // f_sysrc_set: the file f_sysrc_find names, unless that is the defaults or none (then append to the first file)
    const found = findFile(name);
    const target = found && found !== RC_DEFAULTS ? found : undefined;
    let text: string;
    if (target === undefined) text = `${readFile(ctx.state, files[0]) ?? ''}${line}\n`;
    else {
      // tail -r | awk | tail -r through two command substitutions: the file's leading empty lines are dropped
      const lines = records(readFile(ctx.state, target) ?? '');
      while (lines[0] === '') lines.shift();
      const last = lines.findLastIndex((l) => ASSIGNMENT(name).test(l));
      const set = setAssignment(lines[last], name, value);
      if (set === null) lines.push(line);
      else lines[last] = set;
      text = `${lines.join('\n')}\n`;
    }
    if (!writeFile(ctx.state, target ?? files[0], text, undefined, true)) {
      stderr += `sysrc: ${target ?? files[0]}: Permission denied\n`;
      code = 1;
      continue;
    }
    stdout += flags.has('n') ? `${before} -> ${rcValue(name)}\n` : `${name}: ${before} -> ${rcValue(name)}\n`;
  }
  return { code, stdout, stderr };
});
