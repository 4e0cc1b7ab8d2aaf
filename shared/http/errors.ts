import { ValidationError, type FieldError } from '#shared/errors/domain-errors';

export { ValidationError, type FieldError };

/**
 * Errors only the HTTP layer raises (authentication, body size, the API's own routing) with their status.
 * The domain, the jobs and the store throw DomainErrors instead (#shared/errors/domain-errors), which the
 * error renderer maps to statuses (./error-status.ts). Anything else renders as 500 internal_error; the
 * renderer never puts stack traces or SQL in a response body.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    /** snake_case code, becomes the envelope's `message` */
    readonly code: string,
    /** short human detail naming the field or resource, becomes the envelope's `error` */
    readonly detail: string,
    /** only E16's 409 carries data on an error (the 429's retry time is its Retry-After header) */
    readonly data: unknown = null,
    /** response headers the error adds (the 429's `Retry-After`) */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export const badRequest = (code: string, detail: string) => new HttpError(400, code, detail);
export const unauthorized = (detail: string) => new HttpError(401, 'unauthorized', detail);
export const forbidden = (detail: string) => new HttpError(403, 'forbidden', detail);
export const notFound = (code: string, detail: string) => new HttpError(404, code, detail);
export const conflict = (code: string, detail: string, data: unknown = null) => new HttpError(409, code, detail, data);
/** Too many failed authentications from one source: retry after `retryAfterS` seconds (the `Retry-After` header; an error's data is null). */
export const tooManyRequests = (detail: string, retryAfterS: number) =>
  new HttpError(429, 'too_many_requests', detail, null, { 'Retry-After': String(retryAfterS) });
export const payloadTooLarge = (detail: string) => new HttpError(413, 'payload_too_large', detail);
export const badGateway = (code: string, detail: string) => new HttpError(502, code, detail);
export const serviceUnavailable = (code: string, detail: string) => new HttpError(503, code, detail);
export const gatewayTimeout = (code: string, detail: string) => new HttpError(504, code, detail);
