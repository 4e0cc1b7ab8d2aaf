/**
 * The errors that exist only in HTTP, with their status: 401 (no or a bad token), 413 (body too large) and
 * 429 (too many failed authentications, with Retry-After). Every other refusal — in the HTTP layer too — is
 * a DomainError of the one vocabulary (#shared/errors/domain-errors: invalid, forbidden, notFound, conflict,
 * unavailable, upstreamFailed), which the error renderer maps to statuses (./error-status.ts). Anything else
 * renders as 500 internal_error; the renderer never puts stack traces or SQL in a response body.
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

export const unauthorized = (detail: string) => new HttpError(401, 'unauthorized', detail);
/** Too many failed authentications from one source: retry after `retryAfterS` seconds (the `Retry-After` header; an error's data is null). */
export const tooManyRequests = (detail: string, retryAfterS: number) =>
  new HttpError(429, 'too_many_requests', detail, null, { 'Retry-After': String(retryAfterS) });
export const payloadTooLarge = (detail: string) => new HttpError(413, 'payload_too_large', detail);
