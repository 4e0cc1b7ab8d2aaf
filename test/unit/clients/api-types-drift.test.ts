/**
 * The console and the CLI read the API only through the types generated from the OpenAPI document
 * (.generated/api-types.ts, scripts/build/api-types.ts). This test removes one field from a response schema —
 * the node's `name`, which both clients read — regenerates the types from that document, and compiles the real
 * client sources against them with the TypeScript compiler: each must fail, naming the field. The unchanged
 * document compiles clean, so the failure is the removed field's and nothing else's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { apiTypes } from '#scripts/build/api-types';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const GENERATED = path.join(ROOT, '.generated/api-types.ts');
const DOC = path.join(ROOT, '.generated/openapi.json');

/** The diagnostics of one client's sources, compiled with `generated` in place of .generated/api-types.ts. */
function compile(client: 'console' | 'cli', generated: string): string[] {
  const config = path.join(ROOT, client === 'console' ? 'console/tsconfig.json' : 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!parsed) throw new Error(`cannot read ${config}`);
  const roots = client === 'console' ? parsed.fileNames : parsed.fileNames.filter((f) => f.startsWith(path.join(ROOT, 'cli') + path.sep));
  const host = ts.createCompilerHost(parsed.options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    path.resolve(file) === GENERATED ? ts.createSourceFile(file, generated, language) : readSource(file, language, ...rest);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === GENERATED ? generated : readFile(file));
  const program = ts.createProgram(roots, parsed.options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? path.relative(ROOT, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

/** The OpenAPI document with `field` taken out of the `title` schema wherever it is declared. */
function withoutField(doc: unknown, title: string, field: string): unknown {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const schema = node as { title?: string; properties?: Record<string, unknown>; required?: string[] };
    if (schema.title === title && schema.properties && field in schema.properties) {
      delete schema.properties[field];
      schema.required = schema.required?.filter((r) => r !== field);
    }
    for (const value of Object.values(node)) walk(value);
  };
  const copy = structuredClone(doc);
  walk(copy);
  return copy;
}

describe('clients typed from the API', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hm-api-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const doc = JSON.parse(readFileSync(DOC, 'utf8')) as unknown;
  const typesOf = (d: unknown) => {
    const file = path.join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(d));
    return apiTypes(file);
  };
  const removed = typesOf(withoutField(doc, 'NodeView', 'name'));

  test('the document as built: the console and the CLI compile clean', () => {
    const types = typesOf(doc);
    expect(compile('console', types)).toEqual([]);
    expect(compile('cli', types)).toEqual([]);
  });

  test.each(['console', 'cli'] as const)("a node's `name` gone from its response schema: %s no longer compiles", (client) => {
    // NodeView's own top-level `name` is gone (its inventory's jails and VMs keep theirs, on the same line)
    expect(removed).not.toMatch(/"title":"NodeView"[^\n]*?"properties":\{"id":\{[^}]*\},"name":/);
    expect(typesOf(doc)).toMatch(/"title":"NodeView"[^\n]*?"properties":\{"id":\{[^}]*\},"name":/);
    const problems = compile(client, removed);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith(`${client}/`))).toBe(true);
    expect(problems.some((p) => /Property 'name' does not exist/.test(p))).toBe(true);
  });
});
