import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type * as esbuild from 'esbuild';

/**
 * js-yaml as a function bundle needs it: the loader (`load`, `loadAll`) and its error class, without the dumper.
 * The package's ES build is one file, so importing `load` keeps `dump` too; its CommonJS files are one module
 * each, reached here directly (its `exports` map offers no subpath). A function that imports anything else from
 * js-yaml fails the build ("No matching export"). Measured (esbuild metafile, vm/options-cloud-init): 276.9 → 266.8 KB.
 */
export const jsYamlLoadOnly: esbuild.Plugin = {
  name: 'js-yaml-load-only',
  setup(build) {
    const lib = join(dirname(createRequire(import.meta.url).resolve('js-yaml/package.json')), 'lib');
    build.onResolve({ filter: /^js-yaml$/ }, () => ({ path: 'js-yaml', namespace: 'js-yaml-load-only' }));
    build.onLoad({ filter: /.*/, namespace: 'js-yaml-load-only' }, () => ({
      contents: `export { load, loadAll } from ${JSON.stringify(join(lib, 'loader.js'))};\nexport { default as YAMLException } from ${JSON.stringify(join(lib, 'exception.js'))};\n`,
      loader: 'js',
      resolveDir: lib,
    }));
  },
};
