/**
 * `npm test` and `npm start` build through scripts/stack/ensure-built.ts → buildIfStale: dist/ is rebuilt when it is
 * missing AND when any build input changed since the last build (a content hash recorded at build time), so a test
 * run never serves a stale bundle. Checked here on a scratch tree, without building.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inputsHash, STAMP, staleReason } from '../../../scripts/stack/build-if-stale.ts';

const OUTPUTS = [
  'dist/package.json',
  'dist/agent/agent.js',
  'dist/simulator/agent.js',
  'dist/cli/hostmgr.js',
  'dist/console/main.js',
  'dist/functions/tasks-get.mjs',
  '.generated/openapi.json',
  '.generated/functions.yml',
  '.generated/edge.yml',
  '.generated/prod-refused.json',
];

let root: string;
const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hm-build-stale-'));
  put('shared/a.ts', 'export const a = 1;\n');
  put('functions/tasks/get.ts', 'export {};\n');
  put('serverless.yml', 'service: x\n');
  for (const o of OUTPUTS) put(o, '');
  put(STAMP, `${inputsHash(root)}\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test('a build whose recorded inputs match the sources is up to date', () => {
  expect(staleReason(root)).toBeNull();
});

test('an input edited after the build makes dist/ stale, though every output exists', () => {
  put('shared/a.ts', 'export const a = 2;\n');
  expect(staleReason(root)).toBe('sources changed since the last build');
});

test('an input added or removed after the build makes it stale too', () => {
  put('agent/new.ts', 'export {};\n');
  expect(staleReason(root)).toBe('sources changed since the last build');
  rmSync(join(root, 'agent'), { recursive: true });
  expect(staleReason(root)).toBeNull();
  rmSync(join(root, 'functions/tasks/get.ts'));
  expect(staleReason(root)).toBe('sources changed since the last build');
});

test('a build without a stamp, or with an output missing, is stale', () => {
  rmSync(join(root, STAMP));
  expect(staleReason(root)).toMatch(/no build stamp/);
  put(STAMP, `${inputsHash(root)}\n`);
  rmSync(join(root, 'dist/cli/hostmgr.js'));
  expect(staleReason(root)).toBe('dist/cli/hostmgr.js is missing');
});

test('ensure-built decides through buildIfStale, not through the presence of dist/ alone', () => {
  const src = readFileSync('scripts/stack/ensure-built.ts', 'utf8');
  expect(src).toMatch(/buildIfStale\(\)/);
  expect(src).not.toMatch(/existsSync\(['"]dist/);
});
