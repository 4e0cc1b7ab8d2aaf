import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { CompiledSpec, CompiledValidator } from '#http/spec';
import { ValidationError, type FieldError } from '#shared/errors/domain-errors';

type AjvError = NonNullable<CompiledValidator['errors']>[number];
type Event = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown };

/** `/path/ctid` → `path.ctid`, `/body/ids/0` → `body.ids[0]`. */
function fieldName(pointer: string, extra?: unknown): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(String(extra));
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** One failing field as the 400 names it. */
export function describe(e: AjvError): FieldError {
  switch (e.keyword) {
    case 'required':
      return { field: fieldName(e.instancePath, e.params.missingProperty), problem: 'is required' };
    case 'additionalProperties':
      return { field: fieldName(e.instancePath, e.params.additionalProperty), problem: 'is not an accepted field' };
    case 'enum':
      return { field: fieldName(e.instancePath), problem: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { field: fieldName(e.instancePath), problem: e.message ?? e.keyword };
  }
}

/**
 * The endpoint's input checked by its two build-compiled validators: path and query are coerced from strings
 * (defaults applied) and written back to the event; the parsed body is checked strictly. Two validators because
 * ajv coerces per instance, not per subschema. Every failing field is reported at once, its instancePath rooted
 * at `/path`, `/query` or `/body`. Null when the input is valid or the endpoint declares none.
 */
export function eventErrors(spec: Pick<CompiledSpec, 'request' | 'body'>, event: Event): AjvError[] | null {
  const { request, body } = spec;
  let errors: AjvError[] | null = null;
  if (request) {
    const req = { path: { ...(event.pathParameters ?? {}) }, query: { ...(event.queryStringParameters ?? {}) } };
    if (!request(req)) errors = [...(request.errors ?? [])];
    event.pathParameters = req.path as Record<string, string>;
    event.queryStringParameters = req.query as Record<string, string>;
  }
  if (body) {
    // an absent body arrives as undefined or null (serverless-offline), and JSON.parse(null) is null
    if (event.body == null) (errors ??= []).push({ instancePath: '/body', keyword: 'presence', message: 'is required: send a JSON object', params: {} });
    else if (!body(event.body)) (errors ??= []).push(...(body.errors ?? []).map((e) => ({ ...e, instancePath: `/body${e.instancePath}` })));
  }
  return errors;
}

/**
 * The validation stage: invalid input is a 400 validation_failed naming every failing field
 * (`body.ids[0]: must be integer`), thrown as the ValidationError the renderer answers. Undefined when the
 * endpoint declares neither path/query nor body schemas.
 */
export function validateInput(spec: CompiledSpec): middy.MiddlewareObj<Event> | undefined {
  if (!spec.request && !spec.body) return undefined;
  return {
    before: (request) => {
      const errors = eventErrors(spec, request.event);
      if (errors) throw new ValidationError(errors.map(describe));
    },
  };
}
