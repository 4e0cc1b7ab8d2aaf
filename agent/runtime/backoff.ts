/** Sleeps `ms`, or less when the signal aborts (never throws). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Exponential backoff with jitter (half to all of the step): attempt 1 → up to base, doubling, capped. */
export const backoffMs = (attempt: number, baseMs: number, maxMs: number): number =>
  Math.round(Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1)) * (0.5 + Math.random() / 2));

export interface Retries {
  /** total attempts; Infinity retries until `signal` aborts */
  attempts: number;
  baseMs: number;
  maxMs: number;
  /** stops retrying (the last error is thrown) */
  signal?: AbortSignal;
  /** whether an error is worth another attempt */
  retryable: (err: unknown) => boolean;
  /** told before each wait */
  onRetry?: (err: unknown, attempt: number, waitMs: number) => void;
}

/** Runs `once` until it succeeds; between attempts waits `backoffMs`. The last error is thrown when one is not retryable, the attempts are spent, or `signal` aborts. */
export async function withRetries<T>(once: () => Promise<T>, r: Retries): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (err) {
      if (!r.retryable(err) || attempt >= r.attempts || r.signal?.aborted) throw err;
      const wait = backoffMs(attempt, r.baseMs, r.maxMs);
      r.onRetry?.(err, attempt, wait);
      await sleep(wait, r.signal);
      if (r.signal?.aborted) throw err;
    }
  }
}
