/**
 * The host conformance kit ships as one file, dist/agent/host-check.js, that an operator runs with Node alone:
 * no node_modules beside it, and no simulator code in it. Built by npm test's ensure-built step.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const BUNDLE = 'dist/agent/host-check.js';

test('dist/agent/host-check.js holds the kit and its executors, nothing of the simulator', () => {
  const map = JSON.parse(readFileSync(`${BUNDLE}.map`, 'utf8')) as { sources: string[] };
  const modules = map.sources.map((s) => resolve(dirname(BUNDLE), s));
  for (const m of ['agent/check/main.ts', 'agent/check/runner.ts', 'agent/executors/ssh.ts', 'agent/jobs/registry.ts']) expect(modules).toContain(resolve(m));
  expect(modules.filter((m) => m.startsWith(`${resolve('simulator')}/`))).toEqual([]);
});

test('it runs with Node alone, away from the checkout: --help, and exit 2 on bad options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hm-host-check-bundle-'));
  try {
    copyFileSync(BUNDLE, join(dir, 'host-check.js'));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    const help = execFileSync(process.execPath, ['host-check.js', '--help'], { cwd: dir, encoding: 'utf8' });
    expect(help).toMatch(/^host-check — /);
    for (const s of ['inventory', 'sysctl', 'group', 'scratch-pool', 'iscsi']) expect(help).toMatch(new RegExp(`^  ${s} `, 'm'));
    let code = 0;
    try {
      execFileSync(process.execPath, ['host-check.js', '--ssh', 'root@host', '--scratch-pool', 'tank'], { cwd: dir, stdio: 'pipe' });
    } catch (e) {
      code = (e as { status: number }).status;
      expect(String((e as { stderr: Buffer }).stderr)).toMatch(/--host-key|hm-check-/);
    }
    expect(code).toBe(2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
