import type * as esbuild from 'esbuild';

/**
 * pg reads a password from ~/.pgpass (the `pgpass` module, with split2) when the connection string has none.
 * A function's connection string always carries its password (the SSM parameter, or the local stack's URL), and
 * pg deprecates the lookup (removed in pg 9): in a function bundle the module answers "no entry", as pgpass does
 * when the file is absent (−5 KB of every function).
 */
export const pgNoPgpass: esbuild.Plugin = {
  name: 'pg-no-pgpass',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pgpass[\\/]lib[\\/]index\.js$/ }, () => ({
      contents: 'module.exports = function (connInfo, cb) { cb(undefined); };',
      loader: 'js',
    }));
  },
};
