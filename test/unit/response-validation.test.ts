import { openapi } from '#scripts/build/openapi';
import type { EndpointSchema } from '#http/spec';
import { taskViewSchema } from '#http/responses/task';
import { readFileSync } from 'node:fs';
import { ResponseChecker, type OpenApiDoc } from '../helpers/response-schemas.ts';

/**
 * The suite's response check (test/helpers/response-schemas.ts) over a document the build's generator writes
 * from one declared endpoint: a matching answer passes, an answer that drifts from the declaration fails with
 * the route, the status and the path of the offending member.
 */
const schema = {
  summary: 'a task',
  role: 'viewer',
  method: 'GET',
  route: '/api/things/{id}',
  path: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  responses: { 200: 'thing_found', 404: 'thing_not_found', 409: 'thing_busy | thing_locked' },
  data: taskViewSchema,
  errorData: { thing_busy: { type: 'object', properties: { taskId: { type: 'integer' } }, required: ['taskId'], additionalProperties: false } },
} as const satisfies EndpointSchema;
/** a titled shape holding another: both become components, one referring to the other */
const nested = {
  summary: 'a wrapped task',
  role: 'viewer',
  method: 'GET',
  route: '/api/wrapped',
  responses: { 200: 'wrapped' },
  data: { title: 'Wrapped', type: 'object', properties: { task: taskViewSchema }, required: ['task'], additionalProperties: false },
} as const satisfies EndpointSchema;
const undeclared = { summary: 'other', role: 'viewer', method: 'GET', route: '/api/others', responses: { 200: 'others' } } as const satisfies EndpointSchema;

const doc = openapi(
  [
    { name: 'things-get', module: 'functions/things/get', method: 'GET', path: '/api/things/{id}' },
    { name: 'others-list', module: 'functions/others/list', method: 'GET', path: '/api/others' },
    { name: 'wrapped-get', module: 'functions/wrapped/get', method: 'GET', path: '/api/wrapped' },
  ],
  new Map<string, EndpointSchema>([
    ['functions/things/get', schema],
    ['functions/others/list', undeclared],
    ['functions/wrapped/get', nested],
  ]),
  '0.0.0',
) as unknown as OpenApiDoc;
const checker = new ResponseChecker(doc);
/** the document the build wrote from every endpoint (the one GET /api/openapi.json and /api/docs serve) */
const builtDoc = () => JSON.parse(readFileSync('.generated/openapi.json', 'utf8')) as OpenApiDoc;

const task = {
  id: 7,
  kind: 'noop',
  nodeId: 'lab-1',
  resource: 'node:lab-1',
  status: 'running',
  phase: 'working',
  progress: 40,
  output: '',
  error: '',
  result: null,
  requestedBy: 'admin',
  exclusive: false,
  attempts: 1,
  cancelRequestedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:01.000Z',
  finishedAt: null,
  updatedAt: '2026-01-01T00:00:01.000Z',
};
const ok = (data: unknown) => ({ status: 'success', message: 'thing_found', error: '', data });
const err = (message: string, data: unknown) => ({ status: 'error', message, error: 'why', data });

describe('the response check of the suite', () => {
  test('a titled shape is one named component of the document, referenced by the response', () => {
    expect(doc.components.schemas.TaskView).toMatchObject({ title: 'TaskView', required: expect.arrayContaining(['id', 'status']) });
    const ok200 = (doc.paths['/api/things/{id}'].get.responses['200'].content!['application/json'].schema as { allOf: unknown[] }).allOf[1];
    expect(ok200).toEqual({ type: 'object', properties: { status: { const: 'success' }, data: { $ref: '#/components/schemas/TaskView' } } });
  });

  test('an error response is an error envelope: an example drawn from its schema (as /api/docs shows) says "error"', () => {
    for (const d of [doc, builtDoc()])
      for (const [route, ops] of Object.entries(d.paths))
        for (const [method, op] of Object.entries(ops))
          for (const [code, r] of Object.entries(op.responses)) {
            const schema = r.content!['application/json'].schema as { allOf?: unknown[]; anyOf?: { allOf: unknown[] }[] };
            const narrowed = (schema.anyOf ?? [schema]).map((s) => (s as { allOf: { properties?: { status?: unknown } }[] }).allOf[1].properties?.status);
            expect({ at: `${method} ${route} ${code}`, narrowed }).toEqual({
              at: `${method} ${route} ${code}`,
              narrowed: narrowed.map(() => ({ const: Number(code) < 300 ? 'success' : 'error' })),
            });
          }
    // a success answer does not pass as an error, nor an error as a success
    expect(checker.problem('GET', '/api/things/7', 404, { ...ok(null), message: 'thing_not_found' })).toMatch(/\/status must be equal to constant/);
    expect(checker.problem('GET', '/api/things/7', 200, { ...err('thing_found', task), error: '' })).toMatch(/\/status must be equal to constant/);
  });

  test('an answer matching its declaration passes', () => {
    expect(checker.problem('GET', '/api/things/7?x=1', 200, ok(task))).toBeNull();
    expect(checker.problem('GET', '/api/things/7', 404, err('thing_not_found', null))).toBeNull();
    expect(checker.problem('GET', '/api/things/7', 409, err('thing_busy', { taskId: 3 }))).toBeNull();
    expect(checker.problem('GET', '/api/things/7', 409, err('thing_locked', null))).toBeNull();
  });

  test('a shape holding another named shape is checked through both', () => {
    expect(doc.components.schemas.Wrapped).toMatchObject({ properties: { task: { $ref: '#/components/schemas/TaskView' } } });
    expect(checker.problem('GET', '/api/wrapped', 200, ok({ task }))).toBeNull();
    expect(checker.problem('GET', '/api/wrapped', 200, ok({ task: { ...task, status: 'lost' } }))).toMatch(
      /\/data\/task\/status must be equal to one of the allowed values/,
    );
  });

  test('a member of the wrong type fails, naming the route, the status and the member', () => {
    const problem = checker.problem('GET', '/api/things/7', 200, ok({ ...task, progress: '40' }));
    expect(problem).toContain('GET /api/things/{id} answered 200');
    expect(problem).toContain('/data/progress');
    expect(() => checker.check('GET', '/api/things/7', 200, ok({ ...task, progress: '40' }))).toThrow(/\/data\/progress must be integer/);
  });

  test('a member added to a closed shape, or one missing, fails', () => {
    expect(checker.problem('GET', '/api/things/7', 200, ok({ ...task, token_id: 1 }))).toMatch(/additional properties.*token_id/);
    const { nodeId: _, ...withoutNode } = task;
    expect(checker.problem('GET', '/api/things/7', 200, ok(withoutNode))).toMatch(/nodeId/);
  });

  test('an error carries its named data, and no data when it has none declared', () => {
    expect(checker.problem('GET', '/api/things/7', 409, err('thing_busy', null))).not.toBeNull();
    expect(checker.problem('GET', '/api/things/7', 404, err('thing_not_found', { id: 7 }))).toMatch(/answered 404/);
    // a status the declaration does not list: an error with data null passes, a success does not
    expect(checker.problem('GET', '/api/things/7', 503, err('node_offline', null))).toBeNull();
    expect(checker.problem('GET', '/api/things/7', 503, err('node_offline', { x: 1 }))).not.toBeNull();
    expect(checker.problem('GET', '/api/things/7', 201, ok(task))).toMatch(/201 is not among the declared responses/);
  });

  test('a body that is not the envelope, or not JSON, fails', () => {
    expect(checker.problem('GET', '/api/things/7', 200, { data: task })).not.toBeNull();
    expect(checker.problem('GET', '/api/things/7', 200, undefined)).toMatch(/not JSON/);
  });

  test('a route without declared data, or no route at all, is not checked', () => {
    expect(checker.problem('GET', '/api/others', 200, ok({ anything: true }))).toBeNull();
    expect(checker.problem('GET', '/api/nowhere', 200, ok(1))).toBeNull();
  });
});
