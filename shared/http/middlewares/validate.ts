import type middy from '@middy/core';
import { ValidationError, type FieldError } from '#http/errors';
import type { CompiledSpec, CompiledValidator } from '#http/spec';
import type { ParsedBodyEvent } from './json-body.ts';

type AjvError = NonNullable<CompiledValidator['errors']>[number];

/** `/path/ctid` → `path.ctid`, `/body/ids/0` → `body.ids[0]`. */
function fieldName(root: string, pointer: string, extra?: unknown): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(String(extra));
  let out = root;
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

function describe(root: string, e: AjvError): FieldError {
  switch (e.keyword) {
    case 'required':
      return { field: fieldName(root, e.instancePath, e.params.missingProperty), problem: 'is required' };
    case 'additionalProperties':
      return { field: fieldName(root, e.instancePath, e.params.additionalProperty), problem: 'is not an accepted field' };
    case 'enum':
      return { field: fieldName(root, e.instancePath), problem: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { field: fieldName(root, e.instancePath), problem: e.message ?? e.keyword };
  }
}

function collect(root: string, v: CompiledValidator, data: unknown, out: FieldError[]) {
  if (v(data)) return;
  for (const e of v.errors ?? []) out.push(describe(root, e));
}

/**
 * Validates path, query (coerced from strings, defaults applied) and body (strict), and reports every
 * failing field in one 400.
 */
export const validate = (spec: CompiledSpec): middy.MiddlewareObj<ParsedBodyEvent> => ({
  before: (request) => {
    const event = request.event;
    const errors: FieldError[] = [];
    if (spec.request) {
      const req = { path: { ...(event.pathParameters ?? {}) }, query: { ...(event.queryStringParameters ?? {}) } };
      if (!spec.request(req)) {
        for (const e of spec.request.errors ?? []) {
          const [, root, ...rest] = e.instancePath.split('/');
          const top = root ?? String(e.params.missingProperty ?? '');
          errors.push(describe(top, { ...e, instancePath: rest.length ? `/${rest.join('/')}` : '' }));
        }
      }
      event.pathParameters = req.path as Record<string, string>;
      event.queryStringParameters = req.query as Record<string, string>;
    }
    if (spec.body && spec.takesBody && event.body !== undefined) collect('body', spec.body, event.body, errors);
    if (errors.length) throw new ValidationError(errors);
  },
});
