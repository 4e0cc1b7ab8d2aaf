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
