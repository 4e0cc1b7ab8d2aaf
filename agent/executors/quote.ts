/**
 * Quoting an argv for a remote shell. sshd runs the command line through the user's login shell, which is not
 * always sh(1): root's shell is sh since FreeBSD 14.0, but a host upgraded from 13.x keeps csh, which has other
 * quoting rules (a newline inside single quotes is an error there). So every command goes through `/bin/sh -c`
 * (shCommandLine): the login shell, whichever it is, only has to pass one single-quoted word on, and that word
 * holds neither a newline nor a single quote of its own making, which sh and csh read alike.
 *
 * Inside, for sh: each word is single-quoted, the one character that cannot appear inside single quotes (') is
 * written as '\'' — the standard construction, under which no other character (space, $, `, \, ;, |, *, …) has
 * any meaning. Words made only of characters that are never special are left bare for readable logs. Unlike
 * shell-escape (node-ssh's helper), an empty word stays a word (''). A newline is written as "$hm_nl", a variable
 * the script sets first from printf (POSIX: `$(printf '\nx')` with the x cut off, since command substitution
 * drops trailing newlines), so the script has no literal newline for the outer shell to see.
 */
// no `=` (a first word with one is an assignment) and no `%` (a job spec in bash)
const SAFE = /^[A-Za-z0-9_@+:,./-]+$/;
const NEWLINE_VAR = 'hm_nl';

function shQuote(word: string): string {
  if (word.includes('\0')) throw new Error('an argument cannot contain a NUL byte');
  if (SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`.replace(/\n/g, `'"$${NEWLINE_VAR}"'`);
}

/** The argv as one sh command line (words quoted as above; the newline variable is set by shCommandLine). */
export function shJoin(argv: string[]): string {
  return argv.map(shQuote).join(' ');
}

/** `/bin/sh -c '<argv as sh words>'`: the command line to hand to any login shell (sh, csh, bash, …). */
export function shCommandLine(argv: string[]): string {
  const body = shJoin(argv);
  const script = argv.some((w) => w.includes('\n')) ? `${NEWLINE_VAR}=$(printf '\\nx'); ${NEWLINE_VAR}=\${${NEWLINE_VAR}%x}; ${body}` : body;
  return `/bin/sh -c '${script.replace(/'/g, `'\\''`)}'`;
}
