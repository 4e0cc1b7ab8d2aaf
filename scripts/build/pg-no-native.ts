import type * as esbuild from 'esbuild';

/**
 * pg's `native` getter requires its pg-native binding, which is left out (external, absent on Lambda): pg then
 * answers `null`, as it does when the module is not installed. Its wrapper around the binding (8 KB) goes too.
 */
export const pgNoNative: esbuild.Plugin = {
  name: 'pg-no-native',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]native[\\/]index\.js$/ }, () => ({
      contents: "const e = new Error(\"Cannot find module 'pg-native' (left out of function bundles)\"); e.code = 'MODULE_NOT_FOUND'; throw e;",
      loader: 'js',
    }));
  },
};
