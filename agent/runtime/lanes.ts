/**
 * Serial per key, bounded overall: tasks of one resource run one after another (SQS FIFO already delivers a
 * group's messages in order, but one receive can return several of them at once).
 */
export class Lanes {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, fn: () => Promise<void>): Promise<void> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn).catch(() => undefined);
    this.tails.set(key, next);
    void next.then(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
    return next;
  }
}

/** A counter with a wait for "below the limit". */
export class Slots {
  private used = 0;
  private waiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get inUse() {
    return this.used;
  }
  get free() {
    return Math.max(0, this.limit - this.used);
  }
  take() {
    this.used++;
  }
  give() {
    this.used--;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
  /** resolves when a slot is free (or at once if one is), or when the signal aborts */
  whenFree(signal?: AbortSignal): Promise<void> {
    if (this.free > 0 || signal?.aborted) return Promise.resolve();
    return this.next(signal);
  }
  /** resolves when nothing is in use (or the signal aborts) */
  async idle(signal?: AbortSignal): Promise<void> {
    while (this.used > 0 && !signal?.aborted) await this.next(signal);
  }
  /** the next change of use, or the abort; the abort listener is removed either way (no leak on long runs) */
  private next(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
