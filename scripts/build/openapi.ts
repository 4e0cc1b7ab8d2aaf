import type { EndpointSchema } from '#http/spec';
import type { RouteDef } from './routes.ts';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted (a task was queued; see Location)',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

const ENVELOPE = { $ref: '#/components/schemas/Envelope' };

const envelope = {
  type: 'object',
  required: ['status', 'message', 'error', 'data'],
  properties: {
    status: { type: 'string', enum: ['success', 'error'] },
    message: { type: 'string', description: 'snake_case code' },
    error: { type: 'string', description: '"" on success; the reason on error' },
    data: {},
  },
};

function parameters(where: 'path' | 'query', schema: EndpointSchema['path']) {
  const s = schema as { properties?: Record<string, object>; required?: string[] } | undefined;
  return Object.entries(s?.properties ?? {}).map(([name, sch]) => ({
    name,
    in: where,
    required: where === 'path' || Boolean(s?.required?.includes(name)),
    schema: sch,
  }));
}

/** The message codes of a `responses` entry (`'a | b'`, `'a / b'`). */
export const codesOf = (message: string): string[] => message.split(/\s*[|/,]\s*/).filter(Boolean);

/**
 * The envelope whose `status` is narrowed to what the HTTP status says (a 2xx is `success`, anything else
 * `error`: an example drawn from the schema, as /api/docs shows, is then an error envelope), and whose `data`
 * and (when given) `message` are narrowed.
 */
const envelopeWith = (httpStatus: number, data?: unknown, message?: unknown) => ({
  allOf: [
    ENVELOPE,
    {
      type: 'object',
      properties: {
        status: { const: httpStatus < 300 ? 'success' : 'error' },
        ...(message ? { message } : {}),
        ...(httpStatus < 300 ? {} : { error: { type: 'string', minLength: 1 } }),
        ...(data === undefined ? {} : { data }),
      },
    },
  ],
});

/**
 * Response shapes with a `title` (the shared ones of shared/http/responses) become named components, referenced
 * wherever they are used: a reader sees one `TaskView`, and the document states each shape once. Two different
 * shapes under one title fail the build.
 */
function hoistTitled(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((x) => hoistTitled(x, components));
  if (!schema || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, hoistTitled(v, components)]));
  const title = (schema as { title?: unknown }).title;
  if (typeof title !== 'string') return out;
  const name = title.replace(/[^A-Za-z0-9._-]/g, '');
  if (components[name] !== undefined && JSON.stringify(components[name]) !== JSON.stringify(out))
    throw new Error(`two different response shapes are titled ${title}`);
  components[name] = out;
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * The schema of one status's envelope. Without a declared `data` the endpoint answers the generic envelope.
 * With one, a 2xx carries it, and an error carries `errorData[message]` for the codes that have one, null
 * otherwise (an error's data is null unless named).
 */
function responseSchema(s: EndpointSchema, status: number, message: string, components: Record<string, unknown>): unknown {
  if (s.data === undefined) return envelopeWith(status);
  if (status < 300) return envelopeWith(status, hoistTitled(s.data, components));
  const named = codesOf(message).filter((c) => s.errorData?.[c] !== undefined);
  if (!named.length) return envelopeWith(status, { type: 'null' });
  return {
    anyOf: [
      ...named.map((c) => envelopeWith(status, hoistTitled(s.errorData![c], components), { const: c })),
      envelopeWith(status, { type: 'null' }, { not: { enum: named } }),
    ],
  };
}

/** The OpenAPI 3.1 document, from the same schemas the validators are compiled from. */
export function openapi(routes: RouteDef[], schemas: Map<string, EndpointSchema | null>, version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const shapes: Record<string, unknown> = {};
  for (const r of routes) {
    const s = schemas.get(r.module);
    if (!s || r.method === '*') continue;
    const codes = { ...(s.responses ?? { 200: 'success' }), 400: 'validation_failed', 401: 'unauthorized', 403: 'forbidden', 500: 'internal_error' };
    if (s.body) Object.assign(codes, { 413: 'payload_too_large' });
    const responses = Object.fromEntries(
      Object.entries(codes).map(([code, message]) => [
        code,
        {
          description: `${STATUS_TEXT[Number(code)] ?? ''}: ${message}`,
          content: { 'application/json': { schema: responseSchema(s, Number(code), message, shapes) } },
        },
      ]),
    );
    paths[r.path] ??= {};
    paths[r.path][r.method.toLowerCase()] = {
      operationId: r.name,
      summary: s.operation ? `${s.operation}. ${s.summary}` : s.summary,
      'x-required-role': s.role,
      parameters: [...parameters('path', s.path), ...parameters('query', s.query)],
      ...(s.body ? { requestBody: { required: true, content: { 'application/json': { schema: s.body } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Host management control plane',
      version,
      description: 'Every response is the envelope {status, message, error, data}. Authenticate with `Authorization: Bearer <token>`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas: { Envelope: envelope, ...shapes } },
    paths,
  };
}
