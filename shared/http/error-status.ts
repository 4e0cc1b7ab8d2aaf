import { DomainError, type DomainErrorKind } from '#shared/errors/domain-errors';
import { HttpError } from '#http/errors';

/** The status each kind of domain error answers with. */
const STATUS_OF_KIND: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
  upstream: 502,
};

/** What the envelope of an error response is built from. */
interface RenderedError {
  statusCode: number;
  code: string;
  detail: string;
  data: unknown;
  headers?: Record<string, string>;
}

/** The response of a known error (an HttpError or a DomainError); undefined for anything else (a 500). */
export function renderError(err: unknown): RenderedError | undefined {
  if (err instanceof HttpError) return { statusCode: err.statusCode, code: err.code, detail: err.detail, data: err.data, headers: err.headers };
  if (err instanceof DomainError) return { statusCode: STATUS_OF_KIND[err.kind], code: err.code, detail: err.detail, data: err.data };
  return undefined;
}
