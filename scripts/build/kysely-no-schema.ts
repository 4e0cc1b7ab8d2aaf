import type * as esbuild from 'esbuild';

/**
 * Parts of kysely no function uses, yet reachable from the `Kysely` and `QueryCreator` classes every function
 * holds, so tree shaking keeps them. Each is replaced by a class that says so when constructed:
 *  - `db.schema` (the schema builder and its operation nodes): migrations run from scripts/migrate.ts and the
 *    stack, never in a Lambda;
 *  - `withSchema()` (its plugin pulls the 21 KB OperationNodeTransformer): the tables live in `public`;
 *  - `mergeInto()` (MERGE): the functions write with INSERT … ON CONFLICT;
 *  - the dialect's introspector (`db.introspection`): nothing reads the catalog through kysely.
 * Measured on kysely 0.29.9 (esbuild metafile): the schema builder agent/telemetry 311.8 → 284.3 KB; the other
 * three certificates/renew 263.1 → 233.6 KB. If kysely moves a file the build warns and bundles it unchanged
 * (bigger, still correct). A function that starts using one of them fails its tests with the message below.
 */
const LEFT_OUT: { file: RegExp; path: string; classes: string[]; what: string }[] = [
  { file: /[\\/]kysely[\\/]dist[\\/]schema[\\/]schema-module\.js$/, path: 'schema/schema-module.js', classes: ['SchemaModule'], what: 'db.schema' },
  {
    file: /[\\/]kysely[\\/]dist[\\/]plugin[\\/]with-schema[\\/]with-schema-plugin\.js$/,
    path: 'plugin/with-schema/with-schema-plugin.js',
    classes: ['WithSchemaPlugin'],
    what: 'withSchema()',
  },
  {
    file: /[\\/]kysely[\\/]dist[\\/]query-builder[\\/]merge-query-builder\.js$/,
    path: 'query-builder/merge-query-builder.js',
    classes: ['MergeQueryBuilder', 'WheneableMergeQueryBuilder', 'MatchedThenableMergeQueryBuilder', 'NotMatchedThenableMergeQueryBuilder'],
    what: 'mergeInto()',
  },
  {
    file: /[\\/]kysely[\\/]dist[\\/]dialect[\\/]postgres[\\/]postgres-introspector\.js$/,
    path: 'dialect/postgres/postgres-introspector.js',
    classes: ['PostgresIntrospector'],
    what: 'db.introspection',
  },
];

export const kyselyNoSchema: esbuild.Plugin = {
  name: 'kysely-no-schema',
  setup(build) {
    const seen = new Set<string>();
    for (const part of LEFT_OUT)
      build.onLoad({ filter: part.file }, () => {
        seen.add(part.path);
        const message = JSON.stringify(`${part.what} is left out of function bundles (scripts/build/kysely-no-schema.ts)`);
        return {
          contents: part.classes.map((c) => `export class ${c} { constructor() { throw new Error(${message}); } }`).join('\n'),
          loader: 'js',
        };
      });
    build.onEnd((result) => {
      if (result.errors.length) return;
      for (const part of LEFT_OUT)
        if (!seen.has(part.path)) console.warn(`kysely-no-schema: kysely/dist/${part.path} was not bundled; ${part.what} is no longer left out`);
    });
  },
};
