/**
 * Quoting an argv for a remote POSIX shell (sshd runs the command line through the user's login shell;
 * FreeBSD's root shell is sh(1) since 14.0). Each word is single-quoted, the one character that cannot
 * appear inside single quotes (') is written as '\'' — the standard construction, under which no other
 * character (space, $, `, \, ;, |, *, newline …) has any meaning. Words made only of characters that are
 * never special are left bare for readable logs. Unlike shell-escape (node-ssh's helper), an empty word
 * stays a word ('').
 */
// no `=` (a first word with one is an assignment) and no `%` (a job spec in bash)
const SAFE = /^[A-Za-z0-9_@+:,./-]+$/;

function shQuote(word: string): string {
  if (word.includes('\0')) throw new Error('an argument cannot contain a NUL byte');
  if (SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shJoin(argv: string[]): string {
  return argv.map(shQuote).join(' ');
}
