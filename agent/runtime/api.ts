import type { Envelope } from '#shared/agent-api/envelope';
import { withRetries, type Retries } from './backoff.ts';
import { httpText } from './http-request.ts';
import type { Logger } from './log.ts';

/** A refusal by the control plane (4xx other than the retryable ones): retrying the same request is pointless. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'ApiError';
  }
}

/** how a call is retried: attempts and signal as `Retries`, the backoff's bounds optional */
export type RetryPolicy = Pick<Retries, 'attempts' | 'signal'> & Partial<Pick<Retries, 'baseMs' | 'maxMs'>>;

const ONCE: RetryPolicy = { attempts: 1 };

/**
 * The agent's side of /api/agent/*: bearer-token JSON calls with per-request timeouts and retries with
 * backoff for what can heal — network errors, timeouts, 5xx, 429, and 409 cluster_leadership_changed (a
 * serialization conflict in the store). Other 4xx throw ApiError at once.
 */
export class AgentApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly log: Logger,
    private readonly timeoutMs = 15_000,
  ) {}

  call<T>(method: string, path: string, body: unknown, retry: RetryPolicy = ONCE): Promise<{ status: number; data: T; message: string }> {
    return withRetries(() => this.once<T>(method, path, body), {
      attempts: retry.attempts,
      baseMs: retry.baseMs ?? 250,
      maxMs: retry.maxMs ?? 15_000,
      signal: retry.signal,
      retryable: (err) => !(err instanceof ApiError),
      onRetry: (err, attempt, retryInMs) => {
        if (attempt === 1 || attempt % 10 === 0)
          this.log('warn', 'control plane call failed; retrying', { method, path, attempt, retryInMs, cause: (err as Error).message });
      },
    });
  }

  private async once<T>(method: string, path: string, body: unknown): Promise<{ status: number; data: T; message: string }> {
    const res = await httpText(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
    const text = res.text;
    let env: Envelope<T> | undefined;
    try {
      env = JSON.parse(text) as Envelope<T>;
    } catch {
      env = undefined;
    }
    if (res.status >= 200 && res.status < 300 && env) return { status: res.status, data: env.data, message: env.message };
    const code = env?.message ?? 'http_error';
    const detail = env?.error ?? text.slice(0, 200);
    const transient = res.status >= 500 || res.status === 429 || res.status === 408 || code === 'cluster_leadership_changed' || !env;
    if (transient) throw new Error(`${res.status} ${code}: ${detail}`);
    throw new ApiError(res.status, code, detail);
  }
}
