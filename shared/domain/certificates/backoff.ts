/**
 * How long a failed renewal waits before the scheduler tries again: 1 h after the first failure, doubling
 * with each further one (2 h, 4 h, …), never more than 24 h.
 */
const RENEWAL_BACKOFF_BASE_MS = 60 * 60 * 1000;
const RENEWAL_BACKOFF_MAX_MS = 24 * 60 * 60 * 1000;

export function renewalBackoffMs(failures: number): number {
  return Math.min(RENEWAL_BACKOFF_MAX_MS, RENEWAL_BACKOFF_BASE_MS * 2 ** Math.max(0, Math.min(failures, 32) - 1));
}
