import { builtinModules } from 'node:module';
import type * as esbuild from 'esbuild';

const BUILTIN = new Set(builtinModules);

/** The first line of every ESM bundle: a real `require` for the CommonJS code inside (pg) and for builtinsViaRequire. */
export const REQUIRE_BANNER = "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);";

/**
 * An ESM `import … from 'node:http'` makes Node build the module's ESM facade, which reads every export,
 * getters included; on Node 24 node:http's lazy web exports then load undici. @middy/util imports
 * STATUS_CODES that way: measured (cpu profile of importing notifications/count) 12 ms of a 50 ms import
 * spent loading undici, plus ≈ 2 ms of node:crypto's webcrypto setup. Bundled code therefore takes builtins
 * through `require` (the banner defines one), whose object is not walked, and esbuild's CommonJS interop
 * reads only the names used.
 */
export const builtinsViaRequire: esbuild.Plugin = {
  name: 'builtins-via-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
      const name = args.path.replace(/^node:/, '');
      if (!BUILTIN.has(name) || name.includes(':')) return undefined;
      return { path: `node:${name}`, namespace: 'builtin-cjs' };
    });
    build.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};
