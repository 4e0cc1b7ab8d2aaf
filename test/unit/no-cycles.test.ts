/**
 * No import cycles anywhere (functions, shared, agent, simulator, cli, scripts, test, bench): `npm run cycles`
 * (dpdm) exits 1 on any; CI runs it once. Type-only imports count too (dpdm runs without --transform): a cycle through types
 * still ties two modules together, and registries avoid it by keeping their contract in its own file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const DPDM = resolve('node_modules/.bin/dpdm');

describe('import cycles', () => {
  // the whole tree is checked once per CI run, by .ci/run's own step (`npm run -s cycles`); this test checks the
  // check: that it covers every folder of code, and that CI runs it
  test('npm run cycles covers every folder of code, and CI runs it', () => {
    const script: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.cycles;
    for (const folder of ['functions', 'shared', 'agent', 'simulator', 'cli', 'scripts', 'test', 'bench']) expect(script).toContain(`'${folder}/**/*.ts'`);
    expect(script).toContain('--exit-code circular:1');
    // a check of its own, or one of the static checks .ci/run runs beside the quick start ("label|command")
    expect(readFileSync('.ci/run', 'utf8')).toMatch(/^check "[^"]*" npm run -s cycles$|"[^"|]+\|npm run -s cycles"/m);
  });

  test('the check fails on a cycle, even one through a type-only import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hm-cycles-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.ts';\nexport interface A { b?: B }\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.ts';\nexport interface B { a?: A }\n");
      const r = spawnSync(DPDM, ['--no-tree', '--no-warning', '--exit-code', 'circular:1', 'a.ts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.stdout).toMatch(/a\.ts -> b\.ts/);
      expect(r.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
