/**
 * What the AWS SDK's standard retry mode retries, by its own lists (@smithy/core, retry/service-error-classification
 * constants.js: THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES, TRANSIENT_ERROR_STATUS_CODES, CLOCK_SKEW_ERROR_CODES).
 * Copied, not imported: that module is reachable only through `@smithy/core/retry`, whose Node build is CommonJS
 * and put 255 modules (≈ 145 KB) into what the agent reads at start. test/unit/sqs-retry-codes.test.ts checks these
 * against the installed SDK's lists.
 */
export const THROTTLING_ERROR_CODES = [
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
];
export const TRANSIENT_ERROR_CODES = ['TimeoutError', 'RequestTimeout', 'RequestTimeoutException'];
export const TRANSIENT_ERROR_STATUS_CODES = [500, 502, 503, 504];
/** the codes of a request refused for its signing time */
export const CLOCK_SKEW_ERROR_CODES = [
  'AccessDeniedException',
  'AuthFailure',
  'InvalidSignatureException',
  'RequestExpired',
  'RequestInTheFuture',
  'RequestTimeTooSkewed',
  'SignatureDoesNotMatch',
];

/** An error answer worth sending again, as the SDK decides it: throttled (or 429), transient, a 5xx, or refused for a clock skew since corrected. */
export function retryableAnswer(e: { name: string; status: number; clockSkewCorrected: boolean }): boolean {
  return (
    e.status === 429 ||
    (e.status >= 500 && e.status <= 599) ||
    THROTTLING_ERROR_CODES.includes(e.name) ||
    TRANSIENT_ERROR_CODES.includes(e.name) ||
    TRANSIENT_ERROR_STATUS_CODES.includes(e.status) ||
    e.clockSkewCorrected
  );
}
