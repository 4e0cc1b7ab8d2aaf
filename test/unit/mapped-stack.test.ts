import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { mappedStack } from '#shared/log/mapped-stack';

/**
 * A 500's stack is logged with its frames in the TypeScript source, though the functions run without
 * --enable-source-maps: built here the way the function bundles are (minified, map beside, no sources inside).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hm-mapped-stack-'));
  writeFileSync(
    join(dir, 'thrower.ts'),
    [
      'export function outer(x: number): number {',
      '  return inner(x) + 1;',
      '}',
      '',
      'function inner(x: number): number {',
      "  if (x > 0) throw new Error('boom');",
      '  return x;',
      '}',
      '',
    ].join('\n'),
  );
  esbuild.buildSync({
    entryPoints: [join(dir, 'thrower.ts')],
    bundle: true,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    format: 'esm',
    platform: 'node',
    outfile: join(dir, 'out', 'thrower.js'),
  });
  writeFileSync(join(dir, 'out', 'package.json'), '{"type":"module"}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stack a plain node process prints (jest maps stacks itself, so the bundle runs in a child). */
function stackOf(bundle: string): string {
  const script = `import(${JSON.stringify(pathToFileURL(bundle).href)}).then((m) => { try { m.outer(1); } catch (e) { process.stdout.write(e.stack); } })`;
  return execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH } });
}

test("each frame in the bundle points at its source's file, line and column", () => {
  const raw = stackOf(join(dir, 'out', 'thrower.js'));
  expect(raw).toMatch(/thrower\.js:1:\d+/); // minified: one line
  const mapped = mappedStack(raw)!;
  expect(mapped).toContain('Error: boom');
  const frames = mapped.split('\n').filter((l) => l.includes('thrower.'));
  expect(frames[0]).toContain(`${join(dir, 'thrower.ts')}:6:`);
  expect(frames[1]).toContain(`${join(dir, 'thrower.ts')}:2:`);
  expect(mapped).not.toMatch(/thrower\.js:/);
});

test('frames of files without a map beside them stay as they are', () => {
  const stack = `Error: x\n    at f (${pathToFileURL(join(dir, 'nomap.js')).href}:3:7)\n    at node:internal/process/task_queues:105:5`;
  expect(mappedStack(stack)).toBe(stack);
  expect(mappedStack(undefined)).toBeUndefined();
});
