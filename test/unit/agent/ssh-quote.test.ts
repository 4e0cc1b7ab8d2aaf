import { execFileSync } from 'node:child_process';
import { shCommandLine } from '#agent/executors/quote';

/**
 * The SSH executor's command line is read twice: by the login shell (sh, or csh on a host upgraded from 13.x),
 * then by /bin/sh -c. The outer word must therefore hold no newline (csh refuses one inside single quotes:
 * "Unmatched '") — a newline argument travels as "$hm_nl" — and the round trip through two real shells must
 * deliver every argument exactly.
 */
const WORDS = ['a b', "it's", '$HOME', '`id`', '"q"', '', 'x;y|z&', '*', 'tab\there', 'new\nline', 'two\n\n', '\\', '-n', '%1', 'A=B', '~', "'\n'"];

test('every command is /bin/sh -c with one single-quoted word and no newline in it', () => {
  const line = shCommandLine(['printf', '[%s]\\n', ...WORDS]);
  expect(line.startsWith("/bin/sh -c '")).toBe(true);
  expect(line.endsWith("'")).toBe(true);
  expect(line).not.toContain('\n');
  expect(shCommandLine(['zfs', 'list', '-H'])).toBe("/bin/sh -c 'zfs list -H'");
});

test('through a login shell and then /bin/sh -c, every argument arrives as given', () => {
  // the login shell's part: one more sh reading the command line
  const out = execFileSync('/bin/sh', ['-c', shCommandLine(['printf', '[%s]\\n', ...WORDS])], { encoding: 'utf8' });
  expect(out).toBe(WORDS.map((w) => `[${w}]\n`).join(''));
});
