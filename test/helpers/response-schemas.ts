import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Every response the suite receives is checked against the OpenAPI document the build wrote from the
 * endpoints' declared `data`/`errorData` (`.generated/openapi.json`), so a handler that answers anything else —
 * a member renamed, added to a closed object, retyped — fails the test that called it. Routes that declare no
 * `data` yet answer the generic envelope and are not checked here (test/http/response-schemas.test.ts lists them).
 */
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  op: Operation;
}

const ENVELOPE_REF = '#/components/schemas/Envelope';
/** The envelope with no `data` declared: plain, or with only its `status` (and an error's `error`) narrowed. */
const isGenericEnvelope = (schema: unknown) => {
  const s = schema as { $ref?: string; allOf?: { $ref?: string; properties?: Record<string, unknown> }[] } | undefined;
  if (s?.$ref === ENVELOPE_REF && Object.keys(s).length === 1) return true;
  return s?.allOf?.length === 2 && s.allOf[0].$ref === ENVELOPE_REF && s.allOf[1].properties?.data === undefined;
};

export class ResponseChecker {
  private readonly routes: Route[];
  private readonly ajv = new Ajv({ allErrors: false, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    this.routes = Object.entries(doc.paths)
      .flatMap(([template, ops]) =>
        Object.entries(ops).map(([method, op]) => ({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${template.replace(/[.+*?^$()[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
          params: (template.match(/\{/g) ?? []).length,
          op,
        })),
      )
      // a literal segment wins over a parameter (`/api/jail/migrations` before `/api/jail/{id}`)
      .sort((a, b) => a.params - b.params);
  }

  /** The declared route of a request (`path` with or without its query string), if any. */
  route(method: string, path: string): Route | undefined {
    const p = path.split('?')[0];
    return this.routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(p));
  }

  /** Whether the route declares its success `data` (else its responses are not checked). */
  declares(route: Route): boolean {
    return Object.entries(route.op.responses).some(([code, r]) => Number(code) < 300 && !isGenericEnvelope(r.content?.['application/json']?.schema));
  }

  private validator(route: Route, status: number): ValidateFunction | string {
    const key = `${route.method} ${route.template} ${status}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    let schema = route.op.responses[String(status)]?.content?.['application/json']?.schema;
    if (schema === undefined) {
      if (status < 300) return `status ${status} is not among the declared responses (${Object.keys(route.op.responses).join(', ')})`;
      // an error the declaration does not name carries no data
      schema = { allOf: [{ $ref: ENVELOPE_REF }, { type: 'object', properties: { data: { type: 'null' } } }] };
    }
    // the document's component references (also those between components), resolved inside the compiled schema
    const local = (x: unknown) => JSON.parse(JSON.stringify(x).replaceAll('"#/components/schemas/', '"#/$defs/')) as Record<string, unknown>;
    const validate = this.ajv.compile({ ...local(schema), $defs: local(this.doc.components.schemas) });
    this.compiled.set(key, validate);
    return validate;
  }

  /** Why a response does not match its route's declared schema, or null when it does (or is not checked). */
  problem(method: string, path: string, status: number, body: unknown): string | null {
    const route = this.route(method, path);
    if (!route || !this.declares(route)) return null;
    const where = `${route.method} ${route.template} answered ${status}`;
    if (body === undefined) return `${where} with a body that is not JSON`;
    const validate = this.validator(route, status);
    if (typeof validate === 'string') return `${where}: ${validate}`;
    if (validate(body)) return null;
    const errors = (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
    const message = (body as { message?: unknown }).message;
    return `${where} (${String(message)}), which does not match its declared response schema: ${errors.join('; ')}`;
  }

  /** Throws when a response does not match its route's declared schema. */
  check(method: string, path: string, status: number, body: unknown): void {
    const problem = this.problem(method, path, status, body);
    if (problem) throw new Error(problem);
  }
}

let checker: ResponseChecker | undefined;
/** The checker of the built OpenAPI document (read once per test file). */
export function responseChecker(): ResponseChecker {
  checker ??= new ResponseChecker(JSON.parse(readFileSync('.generated/openapi.json', 'utf8')) as OpenApiDoc);
  return checker;
}
