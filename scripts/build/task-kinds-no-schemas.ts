import { readFileSync } from 'node:fs';
import type * as esbuild from 'esbuild';
import ts from 'typescript';

/** What the task-kind table's schemas are for: types, the build's compiled result validators, the docs. */
const SCHEMA_FIELDS = new Set(['payload', 'result']);

/**
 * The task-kind table (shared/agent-api/task-kinds.ts) as a function bundle needs it: each kind's resource,
 * exclusivity, configuration flag, secret fields, peers and undo flag, without its `payload` and `result`
 * schemas. No function reads those at run time: they type the code, and the build compiles the results into
 * .generated/task-results/ (a validator per kind), which the finish path runs. The schema constants they were built from then have no
 * reader either: their builder calls (`exact(…)`) are marked pure so esbuild drops them, and `peersFrom`'s first
 * argument (a schema, there for its type) becomes `0`. Measured (esbuild metafile): 6.1 → ≈ 2 KB in each of the
 * functions that plan tasks. Through TypeScript's syntax tree, so the source's layout does not matter.
 */
export const taskKindsNoSchemas: esbuild.Plugin = {
  name: 'task-kinds-no-schemas',
  setup(build) {
    build.onLoad({ filter: /[\\/]shared[\\/]agent-api[\\/]task-kinds\.ts$/ }, (args) => {
      const source = ts.createSourceFile(args.path, readFileSync(args.path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const strip: ts.TransformerFactory<ts.SourceFile> = (context) => {
        const f = context.factory;
        const visit = (node: ts.Node): ts.Node | undefined => {
          // `kind({ …, payload: …, result: … })`: the entries of the table
          if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && SCHEMA_FIELDS.has(node.name.text) && isKindArgument(node.parent)) return undefined;
          if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
            if (node.expression.text === 'peersFrom' && node.arguments.length === 2)
              return f.updateCallExpression(node, node.expression, node.typeArguments, [
                f.createNumericLiteral(0),
                ts.visitNode(node.arguments[1], visit) as ts.Expression,
              ]);
            if (node.expression.text === 'exact')
              return ts.addSyntheticLeadingComment(ts.visitEachChild(node, visit, context), ts.SyntaxKind.MultiLineCommentTrivia, '@__PURE__', false);
          }
          return ts.visitEachChild(node, visit, context);
        };
        return (file) => ts.visitNode(file, visit) as ts.SourceFile;
      };
      const [out] = ts.transform(source, [strip]).transformed;
      return { contents: ts.createPrinter().printFile(out!), loader: 'ts' };
    });
  },
};

/** The object literal passed to `kind(…)`. */
function isKindArgument(node: ts.Node): boolean {
  return (
    ts.isObjectLiteralExpression(node) && ts.isCallExpression(node.parent) && ts.isIdentifier(node.parent.expression) && node.parent.expression.text === 'kind'
  );
}
