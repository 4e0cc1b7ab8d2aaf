import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { readRoutes } from '#scripts/build/routes';
import { compactErrorSites, hoistObjects, loadSchema } from '#scripts/build/compile-specs';
import { TASK_KINDS, taskKinds } from '#shared/agent-api/task-kinds';
import taskResults, { payloads } from '#generated/task-results.js';

/**
 * The build rewrites every error site of its standalone validators into one helper call
 * (scripts/build/compile-specs.ts, compactErrorSites). Each built validator must answer exactly as ajv's own
 * compilation of the same schema: same verdict, same errors (instancePath, keyword, params, message), same order,
 * on a body built to reach every property of the schema and on each of its mutations (every value replaced by
 * each of several wrong ones, every property removed, an unknown one added).
 */
type Schema = Record<string, unknown>;

/** A value for every property the schema names (first branch of a choice, one item of an array). */
function instance(s: unknown, root: Schema, depth = 0): unknown {
  if (!s || typeof s !== 'object' || depth > 12) return 'x';
  const sc = s as Schema;
  if (typeof sc.$ref === 'string')
    return instance(
      sc.$ref
        .split('/')
        .slice(1)
        .reduce<any>((o, k) => o?.[k], root),
      root,
      depth + 1,
    );
  if ('const' in sc) return sc.const;
  if (Array.isArray(sc.enum)) return sc.enum[0];
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(sc[k])) return instance((sc[k] as unknown[])[0], root, depth + 1);
  const type = Array.isArray(sc.type) ? sc.type[0] : sc.type;
  if (type === 'object' || sc.properties) {
    const props = (sc.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, instance(v, root, depth + 1)]));
  }
  if (type === 'array') return sc.items ? [instance(sc.items, root, depth + 1)] : [];
  if (type === 'integer' || type === 'number') return typeof sc.minimum === 'number' ? sc.minimum : 1;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  return 'x';
}

const WRONG: unknown[] = [null, -1, 1.5, '', 'x', true, [], {}, [1, 'a']];

/** The body, then each mutation of it. */
function* mutations(body: unknown): Generator<unknown> {
  yield body;
  const paths: Array<Array<string | number>> = [];
  const walk = (v: unknown, path: Array<string | number>) => {
    paths.push(path);
    if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, [...path, i]);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(body, []);
  const at = (root: unknown, path: Array<string | number>, fn: (parent: any, key: string | number) => void) => {
    const copy = structuredClone(root);
    if (path.length === 0) return copy;
    const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], copy);
    fn(parent, path.at(-1)!);
    return copy;
  };
  for (const path of paths) {
    for (const w of WRONG) yield path.length ? at(body, path, (p, k) => (p[k] = w)) : w;
    if (path.length) yield at(body, path, (p, k) => (Array.isArray(p) ? p.splice(Number(k), 1) : delete p[k]));
    const node = path.reduce<any>((o, k) => o[k], body);
    if (node && typeof node === 'object' && !Array.isArray(node)) yield at(body, [...path, '__extra'], (p, k) => (p[k] = 1));
  }
}

const shape = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message }));

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function expectSameAnswers(built: Validator, reference: Validator, body: unknown): number {
  let n = 0;
  for (const value of mutations(body)) {
    const a = structuredClone(value);
    const b = structuredClone(value);
    const verdict = built(a);
    expect({ verdict, errors: shape(built.errors), data: a }).toEqual({ verdict: reference(b), errors: shape(reference.errors), data: b });
    n++;
  }
  return n;
}

test('the rewrite keeps every site’s error and leaves other code alone', () => {
  const site =
    'const err3 = {instancePath:instancePath+"/a",schemaPath:"",keyword:"type",params:{type: "string"},message:"must be string"};if(vErrors === null){vErrors = [err3];}else {vErrors.push(err3);}errors++;';
  const other = 'const err4 = {instancePath,schemaPath:"",keyword:"x",params:{},message:"m"};vErrors = [err4];';
  const out = compactErrorSites(`f();${site}g();${other}`);
  expect(out).toContain('f();vErrors = __err(vErrors, instancePath+"/a", "type", {type: "string"});errors++;g();');
  expect(out).toContain(other);
  expect(compactErrorSites('no sites')).toBe('no sites');
});

test('every endpoint’s built body validator answers as ajv’s own compilation of its schema', async () => {
  let checked = 0;
  const modules = [...new Set(readRoutes().map((r) => r.module))];
  for (const module of modules) {
    const schema = await loadSchema(module);
    if (!schema?.body) continue;
    const spec = (await import(`#spec/${module.replace(/^functions\//, '')}`)).default as { body: Validator };
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, inlineRefs: false, coerceTypes: false });
    addFormats(ajv);
    const hoisted = hoistObjects(schema.body as object) as Schema;
    checked += expectSameAnswers(spec.body, ajv.compile(hoisted), instance(hoisted, hoisted));
  }
  expect(checked).toBeGreaterThan(2000);
});

test('every endpoint’s built path and query validator answers as ajv’s own compilation (coercing types)', async () => {
  let checked = 0;
  const modules = [...new Set(readRoutes().map((r) => r.module))];
  for (const module of modules) {
    const schema = await loadSchema(module);
    if (!schema?.path && !schema?.query) continue;
    const spec = (await import(`#spec/${module.replace(/^functions\//, '')}`)).default as { request: Validator };
    const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, inlineRefs: false, coerceTypes: true });
    addFormats(ajv);
    // as scripts/build/compile-specs.ts builds it
    const request = { type: 'object', properties: { path: schema.path ?? { type: 'object' }, query: schema.query ?? { type: 'object' } } };
    const hoisted = hoistObjects(request) as Schema;
    checked += expectSameAnswers(spec.request, ajv.compile(hoisted), instance(hoisted, hoisted));
  }
  expect(checked).toBeGreaterThan(1000);
});

test.each([
  ['result', taskResults],
  ['payload', payloads],
] as const)('every task kind’s built %s validator answers as ajv’s own compilation', (part, built) => {
  let checked = 0;
  for (const kind of TASK_KINDS) {
    const ajv = new Ajv({ allErrors: true, strict: false, inlineRefs: false });
    addFormats(ajv);
    const hoisted = hoistObjects(structuredClone(taskKinds[kind][part])) as Schema;
    checked += expectSameAnswers(built[kind] as Validator, ajv.compile(hoisted), instance(hoisted, hoisted));
  }
  expect(checked).toBeGreaterThan(500);
});
