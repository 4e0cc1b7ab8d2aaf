/**
 * The suite's tiers (test/setup/tiers.cjs): every test file is in exactly one of jest's projects — a file in
 * none would never run, a file in two would run twice — and a file of the fast tier reaches no stack.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import tiers from '../setup/tiers.cjs';

const root = resolve(__dirname, '../..');

function listed(project: string): string[] {
  const r = spawnSync('npx', ['jest', '--listTests', '--json', '--selectProjects', project], { cwd: root, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as string[]).map((f) => relative(root, f));
}

test('every test file is in exactly one tier, as jest itself lists them', () => {
  const seen = new Map<string, string[]>();
  for (const project of tiers.TIERS) for (const f of listed(project)) seen.set(f, [...(seen.get(f) ?? []), project]);
  const all: string[] = tiers.testFiles(root);
  expect(all.filter((f) => (seen.get(f) ?? []).length !== 1).map((f) => `${f}: ${(seen.get(f) ?? []).join(', ') || 'no tier'}`)).toEqual([]);
  expect([...seen.keys()].sort()).toEqual(all);
});

test("a file's tier comes from its folder, a docblock tag overrides it, and a bad tag places it nowhere", () => {
  expect(tiers.tiersOf('test/unit/a.test.ts', 'import x from "y";')).toEqual(['fast']);
  expect(tiers.tiersOf('test/http/a.test.ts', 'import x from "y";')).toEqual(['stack']);
  expect(tiers.tiersOf('test/whatever/new.test.ts', '')).toEqual(['stack']);
  expect(tiers.tiersOf('test/real-zfs/pool.test.ts', '')).toEqual(['real-zfs']);
  expect(tiers.tiersOf('test/unit/a.test.ts', '/**\n * @tier stack\n */')).toEqual(['stack']);
  expect(tiers.tiersOf('test/agent/a.test.ts', '// @tier e2e\nimport x from "y";')).toEqual(['e2e']);
  expect(tiers.tiersOf('test/agent/a.test.ts', '// @tier slow\n')).toEqual([]);
  expect(tiers.tiersOf('test/agent/a.test.ts', '// @tier fast\n// @tier e2e\n')).toEqual(['fast', 'e2e']);
  // the same file set through the plan: an unplaced file is reported, not dropped silently
  expect(tiers.plan(root).unplaced).toEqual([]);
});

test('a profile-sensitive file is one that says so or builds simulated hosts', () => {
  expect(tiers.profileSensitive('/**\n * @profile-sensitive\n */')).toBe(true);
  // built from parts, so this file's own source does not read as one that imports the simulator
  expect(tiers.profileSensitive(`import { initHost } from '#${'simulator'}/init';`)).toBe(true);
  expect(tiers.profileSensitive(`import { simulated } from '../helpers/${'simulated-host'}.ts';`)).toBe(true);
  expect(tiers.profileSensitive("import { parse } from '#agent/drivers/zfs';")).toBe(false);
});

/** The source of a test file and of every test module it imports, transitively. */
function withTestImports(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const src = readFileSync(file, 'utf8');
  let out = src;
  for (const m of src.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const p = resolve(dirname(file), m[1]);
    const found = [p, `${p}.ts`].find((x) => x.endsWith('.ts') && existsSync(x));
    if (found?.startsWith(resolve(root, 'test'))) out += withTestImports(found, seen);
  }
  return out;
}

test('no fast-tier file reaches the stack (its address, store, token or state file)', () => {
  const plan = tiers.plan(root);
  const reaching = plan.fast.filter((f: string) => /HM_TEST_(API|DATABASE_URL|ADMIN_TOKEN|STACK|STORE)\b/.test(withTestImports(resolve(root, f))));
  expect(reaching).toEqual([]);
});
