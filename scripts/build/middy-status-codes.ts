import { STATUS_CODES } from 'node:http';
import type * as esbuild from 'esbuild';

/**
 * @middy/util imports `STATUS_CODES` from node:http, the one thing any function takes from it, and loading
 * node:http (its agent, client, server, incoming and outgoing modules) was ≈ 5 ms of every function's import
 * (cpu profile of importing notifications/count, Node 24). Function bundles get the same table as a literal,
 * written from node:http at build time (the build runs on the runtime's Node major). Anything else importing
 * node:http still gets node:http.
 */
export const middyStatusCodes: esbuild.Plugin = {
  name: 'middy-status-codes',
  setup(build) {
    build.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      /[\\/]@middy[\\/]util[\\/]/.test(args.importer) ? { path: 'status-codes', namespace: 'middy-status-codes' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'middy-status-codes' }, () => ({
      contents: `export const STATUS_CODES = ${JSON.stringify(STATUS_CODES)};\n`,
      loader: 'js',
    }));
  },
};
