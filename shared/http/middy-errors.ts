import { invalid, ValidationError, type DomainError, type FieldError } from '#shared/errors/domain-errors';
import type { CompiledValidator } from '#http/spec';

type AjvError = NonNullable<CompiledValidator['errors']>[number];
interface MiddyError extends Error {
  statusCode?: number;
  cause?: { package?: string; data?: unknown; message?: string };
}
interface RawEvent {
  body?: unknown;
  headers?: Record<string, string | undefined>;
}

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

function describe(e: AjvError): FieldError {
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

const isBlank = (body: unknown) => body == null || (typeof body === 'string' && body.trim() === '');

/**
 * The spec's 400s for what Middy's parser and validator throw (their own statuses are 415 and 422, which the
 * spec does not list). Malformed JSON and a wrong content type are 400 with their own codes; a missing body
 * where one is required is a field error like any other. Anything else passes through unchanged.
 */
export function fromMiddyError(err: unknown, event: RawEvent | undefined): DomainError | undefined {
  const e = err as MiddyError;
  switch (e?.cause?.package) {
    case '@middy/validator':
      if (e.statusCode !== 400) return undefined; // a context/response schema failure is our bug: 500
      return new ValidationError(((e.cause.data as AjvError[] | undefined) ?? []).map(describe));
    case '@middy/http-json-body-parser': {
      // the parser runs before the validator, so it is the one to see a missing body
      if (isBlank(event?.body)) return new ValidationError([{ field: 'body', problem: 'is required: send a JSON object' }]);
      if (e.statusCode === 415) {
        const ct = event?.headers?.['content-type'] ?? event?.headers?.['Content-Type'] ?? '';
        return invalid('unsupported_content_type', `Content-Type must be application/json (got "${ct || 'none'}")`);
      }
      if (e.cause.message === undefined) return invalid('malformed_json', `request body uses the forbidden key ${JSON.stringify(e.cause.data)}`);
      return invalid('malformed_json', `request body is not valid JSON: ${e.cause.message}`);
    }
    default:
      return undefined;
  }
}
