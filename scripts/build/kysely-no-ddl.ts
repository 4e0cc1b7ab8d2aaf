import { readFileSync } from 'node:fs';
import type * as esbuild from 'esbuild';
import ts from 'typescript';

/**
 * kysely's query compiler as a function compiles: SELECT, INSERT, UPDATE, DELETE, WITH and raw SQL. Its
 * methods that write DDL (CREATE/ALTER/DROP of tables, indexes, views, types and schemas, column and constraint
 * definitions) and MERGE have nothing to compile in a function: the only builders of those nodes are
 * `db.schema` and `mergeInto()`, which function bundles leave out (kysely-no-schema.ts). Nor do the clauses of
 * other dialects (MySQL's ON DUPLICATE KEY, SQL Server's TOP and OUTPUT, SQLite's INSERT OR) and EXPLAIN, which no
 * function writes. Their bodies become a call of one function that throws naming this file, so they and the node
 * classes only they read drop out of every bundle. Measured on kysely 0.29.9 (esbuild metafile): ≈ 9 KB less in
 * every function, and 3.2 KB more once the bodies shared one throw instead of a message each. Through
 * TypeScript's syntax tree; a method kysely renames or removes is reported by the build (the bundle then keeps
 * it: bigger, still correct).
 */
export const DDL_METHODS = [
  'visitCreateTable',
  'visitColumnDefinition',
  'visitAlterTable',
  'visitCreateIndex',
  'visitAlterColumn',
  'visitCreateView',
  'visitForeignKeyConstraint',
  'visitAlterType',
  'visitGenerated',
  'visitAddIndex',
  'buildDeferrable',
  'visitUniqueConstraint',
  'visitReferences',
  'visitDropType',
  'visitDropConstraint',
  'visitDropIndex',
  'visitRefreshMaterializedView',
  'visitDropView',
  'visitDropTable',
  'visitAddValue',
  'visitPrimaryKeyConstraint',
  'visitCheckConstraint',
  'visitDropSchema',
  'visitCreateType',
  'visitCreateSchema',
  'visitRenameConstraint',
  'visitDropColumn',
  'visitRenameColumn',
  'visitRenameValue',
  'visitModifyColumn',
  'visitDefaultValue',
  'visitAddConstraint',
  'visitAddColumn',
  'compileColumnAlterations',
  'announcesNewColumnDataType',
  'getAutoIncrement',
  'visitMergeQuery',
  'visitMatched',
  'visitOnDuplicateKey',
  'visitTop',
  'visitOutput',
  'visitOrAction',
  'visitExplain',
];

export const DDL_LEFT_OUT = "DDL, MERGE and other dialects' clauses are left out of function bundles (scripts/build/kysely-no-ddl.ts)";

/** The compiler's source with each of DDL_METHODS' bodies a call of one throwing function; the names it found. */
export function withoutDdl(file: string, code: string): { code: string; found: string[] } {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const names = new Set(DDL_METHODS);
  const found: string[] = [];
  const edits: Array<[number, number]> = [];
  const visit = (node: ts.Node) => {
    if (ts.isMethodDeclaration(node) && node.body && ts.isIdentifier(node.name) && names.has(node.name.text)) {
      found.push(node.name.text);
      edits.push([node.body.getStart(source), node.body.getEnd()]);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = code;
  // one throwing function for all of them: a message per body would cost ≈ 85 bytes a method
  for (const [start, end] of edits.sort((a, b) => b[0] - a[0])) out = `${out.slice(0, start)}{ return __leftOut(); }${out.slice(end)}`;
  return { code: `${out}\nfunction __leftOut() { throw new Error(${JSON.stringify(DDL_LEFT_OUT)}); }\n`, found };
}

export const kyselyNoDdl: esbuild.Plugin = {
  name: 'kysely-no-ddl',
  setup(build) {
    let found: string[] | undefined;
    build.onLoad({ filter: /[\\/]kysely[\\/]dist[\\/]query-compiler[\\/]default-query-compiler\.js$/ }, (args) => {
      const r = withoutDdl(args.path, readFileSync(args.path, 'utf8'));
      found = r.found;
      return { contents: r.code, loader: 'js' };
    });
    build.onEnd((result) => {
      if (result.errors.length || !found) return;
      const missing = DDL_METHODS.filter((m) => !found!.includes(m));
      if (missing.length) console.warn(`kysely-no-ddl: kysely's query compiler has no ${missing.join(', ')}; the rest are left out`);
    });
  },
};
