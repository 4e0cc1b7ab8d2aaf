/**
 * The README and docs name files two ways — markdown links and `code` paths of the repository's folders — and a
 * reader follows both: every one must exist (a link relative to its page, a code path from the repository root or
 * its page). A file moved without its mention fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const pages = [
  'README.md',
  'simulator/README.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const FOLDERS = /^(functions|shared|agent|simulator|cli|scripts|test|bench|console|docs|\.ci)\//;

/** Every path a page names that does not exist, as "page: path". */
function missing(page: string, text: string): string[] {
  const out: string[] = [];
  const here = (p: string) => existsSync(join(root, dirname(page), p));
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].split('#')[0];
    if (target && !/^[a-z]+:/.test(target) && !here(target)) out.push(`${page}: ${m[1]}`);
  }
  for (const m of text.matchAll(/`([A-Za-z0-9_.\-/]+\.(?:ts|md|js|cjs|mjs|json|yml|sh))`/g)) {
    const p = m[1];
    if (FOLDERS.test(p) && !existsSync(join(root, p)) && !here(p)) out.push(`${page}: ${p}`);
  }
  return out;
}

test('every file the README and docs link or name exists', () => {
  expect(pages.length).toBeGreaterThan(10);
  expect(pages.flatMap((p) => missing(p, readFileSync(join(root, p), 'utf8')))).toEqual([]);
});

test('the check sees a missing link and a missing code path', () => {
  expect(missing('docs/x.md', 'see [it](nowhere.md) and `shared/jobs/notify.ts`, but [tests](testing.md)')).toEqual([
    'docs/x.md: nowhere.md',
    'docs/x.md: shared/jobs/notify.ts',
  ]);
});
