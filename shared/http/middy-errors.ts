import { invalid, ValidationError, type DomainError } from '#shared/errors/domain-errors';

interface MiddyError extends Error {
  statusCode?: number;
  cause?: { package?: string; data?: unknown; message?: string };
}
interface RawEvent {
  body?: unknown;
  headers?: Record<string, string | undefined>;
}

const isBlank = (body: unknown) => body == null || (typeof body === 'string' && body.trim() === '');

/**
 * The spec's 400s for what Middy's JSON parser throws (its own status is 415 or 422, which the spec does not
 * list). Malformed JSON and a wrong content type are 400 with their own codes; a missing body
 * where one is required is a field error like any other. Anything else passes through unchanged.
 */
export function fromMiddyError(err: unknown, event: RawEvent | undefined): DomainError | undefined {
  const e = err as MiddyError;
  switch (e?.cause?.package) {
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
