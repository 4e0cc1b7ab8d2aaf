import fc from 'fast-check';
import { anyValue, validValue, MIB_STRING, nested, type Known, type Schema } from './values.ts';
import { inventoryBodies } from './inventories.ts';

/** One operation of the OpenAPI document, as the fuzzer needs it. */
export interface Operation {
  method: string;
  /** the document's path, `/api/...` with `{name}` placeholders */
  path: string;
  role: string;
  summary: string;
  params: Array<{ name: string; in: 'path' | 'query'; required: boolean; schema: Schema }>;
  body?: Schema;
}

/** One request as sent: everything raw, so what failed can be printed and replayed as is. */
export interface FuzzRequest {
  method: string;
  /** path and query string, percent-encoded, `/api/...` */
  url: string;
  contentType?: string;
  body?: string;
}

/** The operations of an OpenAPI 3.1 document (every path and method it lists). */
export function operationsOf(document: { paths: Record<string, Record<string, any>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        path,
        role: op['x-required-role'],
        summary: op.summary ?? '',
        params: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

/**
 * Percent-encodes like a client would; a lone surrogate has no UTF-8 form, so it goes out as the bytes a
 * careless client produces (CESU-8), which the server must decode or refuse, never crash on.
 */
export function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((c) => ((c as string & { isWellFormed(): boolean }).isWellFormed() ? encodeURIComponent(c) : '%ED%A0%80')).join('');
  }
}

const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/**
 * Ids in the spellings a server must not take for the canonical one (jail 101, which other tests' nodes hold), or
 * must refuse cleanly.
 */
const ID_SPELLINGS = [
  '2147483647',
  '0',
  '-1',
  '00101',
  '0x65',
  '1e2',
  '101.0',
  '9'.repeat(30),
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '00000000000000000000000000000000',
  '🐚',
  '%',
  'a/b',
];

// NUL and lone surrogates cannot reach a function in a path: the emulator's router refuses them itself (as API
// Gateway does), in its own format; the in-process checks of the storable-input test cover that path
const pathSafe = (v: string) => !v.includes('\u0000') && (v as string & { isWellFormed(): boolean }).isWellFormed();

function paramText(p: Operation['params'][number], known: Known): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: anyValue(p.schema, p.name, known).map(asText), weight: 6 },
    { arbitrary: fc.constantFrom(...ID_SPELLINGS), weight: 2 },
    ...(known[p.name]?.length ? [{ arbitrary: fc.constantFrom(...known[p.name]), weight: 3 }] : []),
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'multipart/form-data; boundary=x',
  'application/xml',
];

/** Bodies no schema describes: empty, not JSON, not an object, polluting, deeply nested, over the limit. */
const RAW_BODIES = [
  '',
  ' ',
  'null',
  '[]',
  '"text"',
  '1',
  '{',
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '\ufeff{}',
  '{"x":"\\u0000"}',
  '{"\\ud800":1}',
  '{"x":"\\udfff"}',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  JSON.stringify(nested(2000)),
  // unstorable text just inside, at and past the nesting bound (64 levels)
  JSON.stringify(nested(63, 'a\u0000b')),
  JSON.stringify(nested(64, 'a\u0000b')),
  JSON.stringify(nested(65, 'x\ud800')),
  JSON.stringify({ s: MIB_STRING }),
  `{"s":"${MIB_STRING}"`,
];

/** Routes whose bodies get their own generator at the bounds besides the schema's: what agents report. */
const AT_BOUNDS: Record<string, fc.Arbitrary<string>> = { 'PUT /api/agent/inventory': inventoryBodies };

function bodyOf(op: Operation, known: Known): fc.Arbitrary<string | undefined> {
  if (!op.body) return fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: fc.constantFrom(...RAW_BODIES, '{}'), weight: 1 });
  const bounds = AT_BOUNDS[`${op.method} ${op.path}`];
  return fc.oneof(
    ...(bounds ? [{ arbitrary: bounds, weight: 8 }] : []),
    { arbitrary: anyValue(op.body, 'body', known).map((v) => JSON.stringify(v) ?? ''), weight: 10 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.constantFrom(...RAW_BODIES), weight: 2 },
  );
}

/** Requests for one operation: a third clean (valid by the schema, known ids), the rest wild. */
export function requestsFor(op: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ arbitrary: cleanRequests(op, known), weight: 1 }, { arbitrary: wildRequests(op, known), weight: 2 });
}

const fill = (op: Operation, values: string[]) => {
  let i = 0;
  return op.path.replace(/\{\w+\}/g, () => encode(values[i++]));
};

/** Requests the schema accepts, so that mutations get through to the domain and queue tasks. */
function cleanRequests(op: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const text = (p: Operation['params'][number]) => validValue(p.schema, p.name, known, true).map(asText);
  const path = fc.tuple(...pathParams.map(text)).map((values) => fill(op, values));
  const query = fc
    .tuple(...queryParams.map((p) => fc.tuple(fc.constant(p.name), p.required || known[p.name] ? text(p) : fc.option(text(p), { nil: undefined }))))
    .map((params) => params.flatMap(([name, value]) => (value === undefined ? [] : [`${encode(name)}=${encode(value)}`])).join('&'));
  const body = op.body && op.method !== 'GET' ? validValue(op.body, 'body', known, true).map((v) => JSON.stringify(v)) : fc.constant(undefined);
  return fc.record({ path, query, body }).map(({ path: p, query: q, body: b }) => ({
    method: op.method,
    url: q ? `${p}?${q}` : p,
    contentType: b === undefined ? undefined : 'application/json',
    body: b,
  }));
}

/** Requests with any part hostile: path, query (absent, duplicated and unknown keys), content type, body. */
function wildRequests(op: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const path = fc.tuple(...pathParams.map((p) => paramText(p, known).filter(pathSafe))).map((values) => fill(op, values));
  const query = fc
    .tuple(
      fc.tuple(
        ...queryParams.map((p) =>
          fc.tuple(
            fc.constant(p.name),
            fc.option(paramText(p, known), { nil: undefined, freq: 3 }),
            fc.option(paramText(p, known), { nil: undefined, freq: 1 }),
          ),
        ),
      ),
      fc.option(fc.subarray(['__proto__=1', 'constructor[prototype]=x', 'unknown=1', 'x', '=', '&&', `deep${'[a]'.repeat(30)}=1`], { minLength: 1 }), {
        nil: [],
      }),
    )
    .map(([params, extras]) => {
      const parts: string[] = [];
      for (const [name, value, duplicate] of params) {
        if (value !== undefined) parts.push(`${encode(name)}=${encode(value)}`);
        // the same key twice: a client may, and the gateway then hands over a comma-joined value
        if (value !== undefined && duplicate !== undefined) parts.push(`${encode(name)}=${encode(duplicate)}`);
      }
      return [...parts, ...extras].join('&');
    });
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 8 },
    { arbitrary: fc.constantFrom(undefined, ...CONTENT_TYPES), weight: 2 },
  );
  // fetch (like most clients) cannot send a GET with a body
  const body = op.method === 'GET' ? fc.constant(undefined) : bodyOf(op, known);
  return fc.record({ path, query, contentType, body }).map(({ path: p, query: q, contentType: ct, body: b }) => ({
    method: op.method,
    url: q ? `${p}?${q}` : p,
    contentType: b === undefined ? undefined : ct,
    body: b,
  }));
}

/** A request as one printable line (long bodies cut), for the failure report. */
export function describeRequest(req: FuzzRequest): string {
  const body =
    req.body === undefined
      ? '(no body)'
      : req.body.length > 600
        ? `${JSON.stringify(req.body.slice(0, 600))}… (${req.body.length} chars)`
        : JSON.stringify(req.body);
  const url = req.url.length > 600 ? `${req.url.slice(0, 600)}… (${req.url.length} chars)` : req.url;
  return `${req.method} ${url} content-type=${req.contentType ?? '(none)'} body=${body}`;
}
