import { readFileSync } from 'node:fs';
import type * as esbuild from 'esbuild';
import ts from 'typescript';

/** Fields of a setting that only the configuration table (docs/configuration.md) reads. */
const DOC_ONLY = new Set(['description', 'defaultText']);

/**
 * The settings table (shared/config/settings.ts) as a function bundle needs it: without each setting's
 * `description` and `defaultText`, which only the generated configuration table reads (a function parses and
 * refuses values from type, range, pattern and `patternText`). Measured (esbuild metafile, agent/heartbeat):
 * the table 16.4 → 6.7 KB of every function. Removed through TypeScript's syntax tree, so the source's layout
 * does not matter.
 */
export const settingsNoDocs: esbuild.Plugin = {
  name: 'settings-no-docs',
  setup(build) {
    build.onLoad({ filter: /[\\/]shared[\\/]config[\\/]settings\.ts$/ }, (args) => {
      const source = ts.createSourceFile(args.path, readFileSync(args.path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const strip: ts.TransformerFactory<ts.SourceFile> = (context) => {
        const visit = (node: ts.Node): ts.Node | undefined => {
          if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && DOC_ONLY.has(node.name.text)) return undefined;
          return ts.visitEachChild(node, visit, context);
        };
        return (file) => ts.visitNode(file, visit) as ts.SourceFile;
      };
      const [out] = ts.transform(source, [strip]).transformed;
      return { contents: ts.createPrinter().printFile(out!), loader: 'ts' };
    });
  },
};
