/**
 * The errors of the domain, the jobs and the store: what went wrong, never how a protocol answers it.
 * This module imports nothing. The HTTP layer's one error renderer maps each `kind` to a status
 * (shared/http/error-status.ts); the `code`, `detail` and `data` reach the response envelope unchanged.
 */

/** What kind of failure: the renderer's only input for choosing a status. */
export type DomainErrorKind = 'invalid' | 'forbidden' | 'not_found' | 'conflict' | 'unavailable' | 'upstream';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    /** snake_case code, becomes the envelope's `message` */
    readonly code: string,
    /** short human detail naming the field or resource, becomes the envelope's `error` */
    readonly detail: string,
    /** data an error carries to the caller (rare: most errors carry none) */
    readonly data: unknown = null,
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

/** One failing field of a request, as reported by validation. */
export interface FieldError {
  field: string;
  problem: string;
}

/** Input that breaks a rule, field by field: code `validation_failed`, the detail lists every field. */
export class ValidationError extends DomainError {
  constructor(readonly fields: FieldError[]) {
    // Refused input is answered from its fields, never from where it was found refused, and no log line shows
    // its stack: capturing one (through the request's async middleware chain) was the dearest step of a 400.
    const depth = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super('invalid', 'validation_failed', fields.map((f) => `${f.field}: ${f.problem}`).join('; '));
    Error.stackTraceLimit = depth;
    this.name = 'ValidationError';
  }
}

/** Input refused under its own code (e.g. `tunable_read_only`); `detail` names the field. */
export const invalid = (code: string, detail: string) => new DomainError('invalid', code, detail);
/** The caller may not touch this resource (e.g. another node's task). */
export const forbidden = (detail: string) => new DomainError('forbidden', 'forbidden', detail);
export const notFound = (code: string, detail: string) => new DomainError('not_found', code, detail);
/** The resource's state or a concurrent change refuses the request. */
export const conflict = (code: string, detail: string, data: unknown = null) => new DomainError('conflict', code, detail, data);
/** Something the request needs (the store, a node's agent) cannot answer now; a retry may succeed. */
export const unavailable = (code: string, detail: string) => new DomainError('unavailable', code, detail);
/** A server the request itself must reach (e.g. the ACME directory) failed to answer: a bad gateway. */
export const upstreamFailed = (code: string, detail: string) => new DomainError('upstream', code, detail);
