/** Nearest-rank percentile of a sample (p in 0..100). */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (sample: number[]) => percentile(sample, 50);

/** Milliseconds, with a unit that keeps three significant figures readable. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}

export const fmtKB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Runs `fn` `warmup` times unmeasured, then `n` times; returns each run's duration in ms. */
export async function sample(n: number, fn: () => Promise<unknown>, warmup = Math.min(50, Math.ceil(n / 10))): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out[i] = performance.now() - t;
  }
  return out;
}
