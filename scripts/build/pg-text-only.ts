import type * as esbuild from 'esbuild';

/**
 * pg-types registers a parser per type for both result formats. pg asks for binary results only when `binary` is
 * set (the client's config, the connection string or PGBINARY), which nothing here sets: kysely and every query
 * read text. In a function bundle the binary table stays empty — as it already is for every type pg-types has no
 * binary parser for — and its parsers and pg-int8 go (−2.7 KB of every function).
 */
export const pgTextOnly: esbuild.Plugin = {
  name: 'pg-text-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg-types[\\/]lib[\\/]binaryParsers\.js$/ }, () => ({
      contents: 'module.exports = { init() {} };',
      loader: 'js',
    }));
  },
};
