/**
 * Why an outbound connection failed, as a fixed reason: an HTTP status (`HTTP 503`), an SMTP reply code
 * (`SMTP 535`), a system or TLS error code (`ECONNREFUSED`, `ETIMEDOUT`, `CERT_HAS_EXPIRED`), or one of our own
 * phrases (`address not allowed: loopback`). Never the peer's text nor an exception message: those can carry an
 * internal error page, a banner or a secret of the request, and the reasons are shown to viewers and logged.
 */
export class OutboundFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OutboundFailure';
  }
}

/** an error code as Node, OpenSSL and nodemailer spell them: capitals, digits and underscores only */
const CODE = /^[A-Z][A-Z0-9_]{1,40}$/;

/** The fixed reason of any error a send threw: its OutboundFailure reason, else its code, else `internal_error`. */
export function failureReason(err: unknown): string {
  if (err instanceof OutboundFailure) return err.reason;
  const e = err as { name?: string; code?: unknown; cause?: { code?: unknown } } | null | undefined;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'ETIMEDOUT';
  for (const code of [e?.code, e?.cause?.code]) if (typeof code === 'string' && CODE.test(code)) return code;
  return 'internal_error';
}

/** The shapes a fixed reason takes; text stored by an older version (a peer's answer, an exception message) does not match. */
const FIXED_REASON =
  /^(?:HTTP \d{3}|SMTP \d{3}(?: \([A-Z][A-Z ]{0,20}\))?|[A-Z][A-Z0-9_]{1,40}|internal_error|address not allowed: [A-Za-z0-9:]{1,40}|not configured: [A-Za-z ()]{1,40}|invalid URL|scheme not allowed|credentials in URL not allowed)$/;

export const isFixedReason = (text: string) => FIXED_REASON.test(text);
