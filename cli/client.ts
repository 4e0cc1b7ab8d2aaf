/** The control plane's envelope: every answer, success or error, has these four fields. */
export interface Envelope<T = unknown> {
  status: 'success' | 'error';
  message: string;
  error: string;
  data: T;
}

export interface ApiAnswer<T = unknown> {
  status: number;
  envelope: Envelope<T>;
  /** the task a 202 queued (its Location header, else the data's task id) */
  taskId: number | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: Envelope,
  ) {
    super(`${status} ${envelope.message}${envelope.error ? `: ${envelope.error}` : ''}`);
  }
}

/** No answer at all: the API could not be reached (refused, reset, DNS). */
export class UnreachableError extends Error {}

/** Calls one route with the bearer token; throws ApiError for a non-2xx answer, with the envelope's words. */
export class Client {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<T = unknown>(method: string, path: string, opts: { query?: Record<string, string>; body?: unknown } = {}): Promise<ApiAnswer<T>> {
    const qs = opts.query && Object.keys(opts.query).length ? `?${new URLSearchParams(opts.query)}` : '';
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}${qs}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (err) {
      throw new UnreachableError(`cannot reach ${this.baseUrl}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let envelope: Envelope<T>;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new Error(`${method} ${path}: ${res.status} and not the API's JSON envelope (is ${this.baseUrl} the hostmgr API?)`);
    }
    if (res.status < 200 || res.status > 299) throw new ApiError(res.status, envelope as Envelope);
    return { status: res.status, envelope, taskId: res.status === 202 ? taskIdOf(res.headers.get('location'), envelope.data) : null };
  }
}

function taskIdOf(location: string | null, data: unknown): number | null {
  const m = location ? /\/tasks\/(\d+)$/.exec(location) : null;
  if (m) return Number(m[1]);
  const d = data as { taskId?: unknown } | null;
  return typeof d?.taskId === 'number' ? d.taskId : null;
}
