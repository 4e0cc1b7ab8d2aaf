/**
 * No import cycles anywhere (functions, shared, agent, simulator, scripts, test, bench): `npm run cycles`
 * (dpdm) exits 1 on any. Type-only imports count too (dpdm runs without --transform): a cycle through types
 * still ties two modules together, and registries avoid it by keeping their contract in its own file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const DPDM = resolve('node_modules/.bin/dpdm');

describe('import cycles', () => {
  test('npm run cycles finds none', () => {
    const r = spawnSync('npm', ['run', '-s', 'cycles'], { encoding: 'utf8', timeout: 60_000 });
    expect(`${r.stdout}${r.stderr}`).toContain('no circular dependency was found');
    expect(r.status).toBe(0);
  }, 90_000);

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
