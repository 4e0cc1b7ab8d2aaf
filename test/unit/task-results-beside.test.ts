/**
 * A function bundle loads a task kind's validators from a file the build writes beside it
 * (scripts/build/task-results-beside.ts), where the source imports them from .generated/task-results/. Bundled here
 * as the build does (esbuild, the plugin, each kind's validators bundled alone beside the bundle) and run by
 * node: every kind's result and payload validator, loaded through the bundle, must answer as the generated one
 * does in-process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { bundlesLoadingResults, taskResultsBeside } from '#scripts/build/task-results-beside';
import { TASK_RESULTS_DIR } from '#scripts/build/compile-task-results';
import { TASK_KINDS, taskKinds } from '#shared/agent-api/task-kinds';
import taskResults, { payloads } from '#generated/task-results.js';

type Part = 'result' | 'payload';
const PARTS: Part[] = ['result', 'payload'];

/** Values each result and payload validator must judge alike: wrong shapes, and each required field given a string. */
function samples(kind: (typeof TASK_KINDS)[number], part: Part): unknown[] {
  const required = ((taskKinds[kind][part] as { required?: string[] }).required ?? []) as string[];
  return [null, {}, [], 'x', 1, Object.fromEntries(required.map((k) => [k, 'x'])), { ...Object.fromEntries(required.map((k) => [k, 1])), __extra: 1 }];
}

test('each kind’s validator loaded from beside the bundle answers as the generated one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hm-results-beside-'));
  try {
    const common: esbuild.BuildOptions = { bundle: true, platform: 'node', format: 'esm', target: 'node24', outdir: dir, logLevel: 'error', write: true };
    const fn = await esbuild.build({
      ...common,
      metafile: true,
      plugins: [taskResultsBeside],
      stdin: { contents: "export { kindValidators } from '#shared/jobs/result-validators';", resolveDir: process.cwd(), loader: 'ts', sourcefile: 'fn.ts' },
      outfile: join(dir, 'fn.js'),
      outdir: undefined,
    });
    // the build finds the bundles that load validators by the loader among their inputs
    expect(bundlesLoadingResults(fn.metafile!)).toHaveLength(1);
    await esbuild.build({ ...common, entryPoints: Object.fromEntries(TASK_KINDS.map((k) => [`fn.result.${k}`, `${TASK_RESULTS_DIR}/${k}.js`])) });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    const cases = TASK_KINDS.flatMap((kind) => PARTS.flatMap((part) => samples(kind, part).map((value) => ({ kind, part, value }))));
    writeFileSync(
      join(dir, 'run.mjs'),
      [
        "import { kindValidators } from './fn.js';",
        `const cases = ${JSON.stringify(cases)};`,
        'const out = [];',
        'for (const c of cases) { const v = (await kindValidators(c.kind))[c.part]; const ok = v(structuredClone(c.value)); out.push({ ok, errors: v.errors ?? null }); }',
        'process.stdout.write(JSON.stringify(out));',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [join(dir, 'run.mjs')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const answers = JSON.parse(run.stdout) as Array<{ ok: boolean; errors: unknown }>;
    expect(answers).toHaveLength(cases.length);
    for (const [i, c] of cases.entries()) {
      const v = (c.part === 'result' ? taskResults : payloads)[c.kind];
      const ok = v(structuredClone(c.value));
      expect({ kind: c.kind, part: c.part, value: c.value, ...answers[i] }).toEqual({
        kind: c.kind,
        part: c.part,
        value: c.value,
        ok,
        errors: JSON.parse(JSON.stringify(v.errors ?? null)),
      });
    }
    // the samples reach the validators' error sites, not only their verdicts
    expect(answers.filter((a) => !a.ok).length).toBeGreaterThan(TASK_KINDS.length * PARTS.length * 4);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
