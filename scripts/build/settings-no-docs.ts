import { readFileSync } from 'node:fs';
import type * as esbuild from 'esbuild';
import ts from 'typescript';

/** Fields of a setting that only the configuration table (docs/configuration.md) reads. */
const DOC_ONLY = new Set(['description', 'defaultText']);

/** The settings table's readers that are functions (a setting no function reads has no other reader among them). */
const FUNCTION_READER = 'functions';

/**
 * The settings table (shared/config/settings.ts) as a function bundle needs it: without each setting's
 * `description` and `defaultText`, which only the generated configuration table reads (a function parses and
 * refuses values from type, range, pattern and `patternText`), and without the settings whose `readers` do not
 * name `functions` (the agent's, the local stack's, the deploy's: 63 of 97). Measured (esbuild metafile,
 * agent/heartbeat): the table 16.4 → 6.7 KB of every function without the docs, → 2.9 KB with only the
 * functions' settings. Removed through TypeScript's syntax tree, so the source's layout does not matter. A
 * function bundle that names a setting left out fails the build (scripts/build.ts, `settingsLeftOut`).
 */
/** The settings this build left out of the table, by name: no function bundle may name one. */
export const leftOut = new Set<string>();

/** An entry of the SETTINGS table itself (`NAME: { … }` directly in `export const SETTINGS = { … } as const satisfies …`). */
function isSettingEntry(node: ts.Node): node is ts.PropertyAssignment & { name: ts.Identifier } {
  if (!ts.isPropertyAssignment(node) || !ts.isIdentifier(node.name) || !ts.isObjectLiteralExpression(node.parent)) return false;
  let up: ts.Node = node.parent.parent;
  while (ts.isSatisfiesExpression(up) || ts.isAsExpression(up)) up = up.parent;
  return ts.isVariableDeclaration(up) && ts.isIdentifier(up.name) && up.name.text === 'SETTINGS';
}

/** Whether a setting's entry (`NAME: { …, readers: [...] }`) lists `functions` among its readers; true when it has no readers list. */
function readByFunctions(entry: ts.PropertyAssignment): boolean {
  if (!ts.isObjectLiteralExpression(entry.initializer)) return true;
  const readers = entry.initializer.properties.find((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'readers');
  if (!readers || !ts.isPropertyAssignment(readers) || !ts.isArrayLiteralExpression(readers.initializer)) return true;
  return readers.initializer.elements.some((e) => ts.isStringLiteral(e) && e.text === FUNCTION_READER);
}

/** Settings left out of the table that a bundle's text still names (its minified output keeps string literals). */
export function settingsLeftOut(bundleText: string): string[] {
  return [...leftOut].filter((name) => new RegExp(`["'\`]${name}["'\`]`).test(bundleText));
}

export const settingsNoDocs: esbuild.Plugin = {
  name: 'settings-no-docs',
  setup(build) {
    build.onLoad({ filter: /[\\/]shared[\\/]config[\\/]settings\.ts$/ }, (args) => {
      const source = ts.createSourceFile(args.path, readFileSync(args.path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const strip: ts.TransformerFactory<ts.SourceFile> = (context) => {
        const visit = (node: ts.Node): ts.Node | undefined => {
          if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && DOC_ONLY.has(node.name.text)) return undefined;
          if (isSettingEntry(node) && !readByFunctions(node)) {
            leftOut.add(node.name.text);
            return undefined;
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
