import type * as esbuild from 'esbuild';

/**
 * Function bundles never build schema (migrations run from scripts/migrate.ts and the stack, never in a
 * Lambda), yet `Kysely`'s `schema` getter reaches the whole schema builder and its operation nodes. This
 * replaces that one module with a class that says so when constructed. Measured on kysely 0.29.9:
 * agent/telemetry 311.8 → 284.3 KB, notifications/count 254 → 226.5 KB. If kysely moves the file the build
 * warns and bundles it unchanged (bigger, still correct).
 */
export const kyselyNoSchema: esbuild.Plugin = {
  name: 'kysely-no-schema',
  setup(build) {
    let seen = false;
    build.onLoad({ filter: /[\\/]kysely[\\/]dist[\\/]schema[\\/]schema-module\.js$/ }, () => {
      seen = true;
      return {
        contents:
          "export class SchemaModule { constructor() { throw new Error('db.schema is left out of function bundles (scripts/build/kysely-no-schema.ts)'); } }",
        loader: 'js',
      };
    });
    build.onEnd((result) => {
      if (!seen && result.errors.length === 0)
        console.warn('kysely-no-schema: kysely/dist/schema/schema-module.js was not bundled; the schema builder is no longer left out');
    });
  },
};
