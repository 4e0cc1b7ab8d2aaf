import { load as loadYaml } from 'js-yaml';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { declaredFunctions } from '#scripts/build/routes';
import { functionsYml } from '#scripts/build/functions-yml';

/** The build generates the functions section only from complete declarations; anything else stops it. */
let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'hm-declared-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
};
const handler = 'export const handler = async () => null;\n';
const schema = (fields: string) => `export const schema = { summary: 's', role: 'operator', ${fields} };\n`;

test('a schema, a catch-all and a schedule become their serverless functions', async () => {
  write({
    'functions/vm/get.ts': handler,
    'functions/vm/get.schema.ts': schema(`method: 'GET', route: '/api/vm/{rid}', path: { type: 'object', properties: { rid: {} } }`),
    'functions/vm/helpers.ts': 'export const x = 1;\n',
    'functions/meta/not-found.ts': handler,
    'functions/meta/not-found.trigger.ts': `export const trigger = { summary: 's', route: '$default' };\n`,
    'functions/tasks/sweep.ts': handler,
    'functions/tasks/sweep.trigger.ts': `export const trigger = { summary: 's', schedule: 'rate(1 minute)', timeout: 60 };\n`,
  });
  const fns = await declaredFunctions(root);
  expect(fns.map((f) => f.name)).toEqual(['meta-not-found', 'tasks-sweep', 'vm-get']);
  expect(loadYaml(functionsYml(fns))).toEqual({
    'meta-not-found': {
      handler: 'dist/functions/meta/not-found.handler',
      events: [{ httpApi: '*' }],
      package: { patterns: ['dist/functions/meta/not-found.*'] },
    },
    'tasks-sweep': {
      handler: 'dist/functions/tasks/sweep.handler',
      timeout: 60,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Serverless variable the build writes, not a template literal
      events: [{ schedule: { rate: ['rate(1 minute)'], enabled: "${strToBool(${env:HM_SCHEDULES_ENABLED, 'true'})}" } }],
      package: { patterns: ['dist/functions/tasks/sweep.*'] },
    },
    'vm-get': {
      handler: 'dist/functions/vm/get.handler',
      tags: { role: 'operator' },
      events: [{ httpApi: { method: 'GET', path: '/api/vm/{rid}' } }],
      package: { patterns: ['dist/functions/vm/get.*'] },
    },
  });
});

test.each([
  ['a schema without method and route', { 'functions/a/op.ts': handler, 'functions/a/op.schema.ts': schema('') }, /must declare `method` and `route`/],
  ['a handler without a schema or trigger', { 'functions/a/op.ts': handler }, /exports a handler but has neither op\.schema\.ts nor op\.trigger\.ts/],
  [
    'a schema without a handler',
    { 'functions/a/op.ts': 'export const x = 1;\n', 'functions/a/op.schema.ts': schema(`method: 'GET', route: '/api/a'`) },
    /exports no handler/,
  ],
  [
    'a schema and a trigger for one handler',
    {
      'functions/a/op.ts': handler,
      'functions/a/op.schema.ts': schema(`method: 'GET', route: '/api/a'`),
      'functions/a/op.trigger.ts': `export const trigger = { summary: 's', route: '$default' };\n`,
    },
    /both a schema and a trigger/,
  ],
  [
    'two functions on one route',
    {
      'functions/a/x.ts': handler,
      'functions/a/x.schema.ts': schema(`method: 'GET', route: '/api/a'`),
      'functions/a/y.ts': handler,
      'functions/a/y.schema.ts': schema(`method: 'GET', route: '/api/a'`),
    },
    /a-y and a-x both declare GET \/api\/a/,
  ],
  [
    'route parameters the path schema does not validate',
    { 'functions/a/op.ts': handler, 'functions/a/op.schema.ts': schema(`method: 'GET', route: '/api/a/{id}'`) },
    /has parameters \[id\] but `path` validates \[\]/,
  ],
  [
    'a trigger that is neither the catch-all, pages nor a schedule',
    { 'functions/a/op.ts': handler, 'functions/a/op.trigger.ts': `export const trigger = { summary: 's' };\n` },
    /must declare `route: '\$default'`, `pages` or a `schedule`/,
  ],
  [
    'a public page on an endpoint’s route',
    {
      'functions/a/x.ts': handler,
      'functions/a/x.schema.ts': schema(`method: 'GET', route: '/api/a'`),
      'functions/a/y.ts': handler,
      'functions/a/y.trigger.ts': `export const trigger = { summary: 's', pages: ['/api/b', '/api/a'] };\n`,
    },
    /a-y and a-x both declare GET \/api\/a/,
  ],
])('the build refuses %s', async (_, files, error) => {
  write(files);
  await expect(declaredFunctions(root)).rejects.toThrow(error);
});

test('a trigger’s pages become public GET routes of its one function, with no role', async () => {
  write({
    'functions/meta/docs.ts': handler,
    'functions/meta/docs.trigger.ts': `export const trigger = { summary: 's', pages: ['/api/docs', '/api/docs/{file}'] };\n`,
  });
  expect(loadYaml(functionsYml(await declaredFunctions(root)))).toEqual({
    'meta-docs': {
      handler: 'dist/functions/meta/docs.handler',
      events: [{ httpApi: { method: 'GET', path: '/api/docs' } }, { httpApi: { method: 'GET', path: '/api/docs/{file}' } }],
      package: { patterns: ['dist/functions/meta/docs.*'] },
    },
  });
});

test('an endpoint’s own memory becomes its memorySize; the others keep the provider’s', async () => {
  write({
    'functions/agent/telemetry.ts': handler,
    'functions/agent/telemetry.schema.ts': schema(`method: 'POST', route: '/api/agent/telemetry', memoryMb: 128`),
    'functions/vm/list.ts': handler,
    'functions/vm/list.schema.ts': schema(`method: 'GET', route: '/api/vm'`),
  });
  const yml = loadYaml(functionsYml(await declaredFunctions(root))) as Record<string, { memorySize?: number }>;
  expect(yml['agent-telemetry'].memorySize).toBe(128);
  expect(yml['vm-list']).not.toHaveProperty('memorySize');
});
