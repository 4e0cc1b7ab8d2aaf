import type * as esbuild from 'esbuild';
import { TASK_KINDS } from '#shared/agent-api/task-kinds';
import { TASK_RESULTS_DIR } from './compile-task-results.ts';
import { bundlesLoading } from './bundles-loading.ts';

const LOADER = /(^|[\\/])shared[\\/]jobs[\\/]result-validators\.ts$/;

/**
 * Task kinds' validators as a function bundle loads them: shared/jobs/result-validators.ts imports a kind's
 * validators from .generated/task-results/ when a task of that kind first needs them; in a bundle it imports the
 * file the build writes beside the bundle, `<bundle>.result.<kind>.js` (each kind's bundled alone), which the
 * function's package takes with it (`dist/<module>.*`). Same validators, cached by the module loader alike; the
 * finish route's bundle no longer holds every kind's (agent/task-finish 266 → ≈ 234 KB, esbuild metafile).
 */
export const taskResultsBeside: esbuild.Plugin = {
  name: 'task-results-beside',
  setup(build) {
    build.onLoad({ filter: LOADER }, () => ({
      contents: ['export function kindValidators(kind) {', "  return import(import.meta.url.replace(/\\.js$/, '.result.' + kind + '.js'));", '}'].join('\n'),
      loader: 'js',
    }));
  },
};

/** The bundles (dist/<module>.js) that load validators beside them, from the functions' metafile. */
export const bundlesLoadingResults = (meta: esbuild.Metafile): string[] => bundlesLoading(meta, LOADER);

/** esbuild entry points writing every kind's validator beside each of those bundles. */
export const resultEntries = (bundles: string[]): Record<string, string> =>
  Object.fromEntries(bundles.flatMap((b) => TASK_KINDS.map((k) => [`${b.replace(/^dist\//, '')}.result.${k}`, `${TASK_RESULTS_DIR}/${k}.js`])));
