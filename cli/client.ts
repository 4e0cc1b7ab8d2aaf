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
  /** the task the call queued: a 202's (its Location header, else the data's task id), or a change's 200 naming one */
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

/** A redirect the client will not follow: to another origin, or one too many. */
export class RedirectError extends Error {}

const MAX_REDIRECTS = 5;

/**
 * Calls one route with the bearer token; throws ApiError for a non-2xx answer, with the envelope's words.
 * Redirects are followed by hand and only within the API's origin (scheme, host and port): the token, the
 * method and the body (a VNC password, a secret) never go to another server, and an answer from one is never
 * taken for the API's (so `login` cannot save a token another server accepted). A 307/308 repeats the method and
 * body to the same origin; 301/302/303 become a GET without a body, as browsers do.
 */
export class Client {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<T = unknown>(method: string, path: string, opts: { query?: Record<string, string>; body?: unknown } = {}): Promise<ApiAnswer<T>> {
    const qs = opts.query && Object.keys(opts.query).length ? `?${new URLSearchParams(opts.query)}` : '';
    const res = await this.fetchSameOrigin(method, `${this.baseUrl}${path}${qs}`, opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const text = await res.text();
    let envelope: Envelope<T>;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new Error(`${method} ${path}: ${res.status} and not the API's JSON envelope (is ${this.baseUrl} the hostmgr API?)`);
    }
    if (res.status < 200 || res.status > 299) throw new ApiError(res.status, envelope as Envelope);
    // a 202 queued its task; a change answered 200 (E5, E17, E19: the store holds it, the host follows) names the
    // task that carries it to the host in its data, and the command follows that task as it would a 202's
    const queued = res.status === 202 || (method !== 'GET' && res.status === 200);
    return { status: res.status, envelope, taskId: queued ? taskIdOf(res.status === 202 ? res.headers.get('location') : null, envelope.data) : null };
  }

  private async fetchSameOrigin(method: string, url: string, body: string | undefined): Promise<Response> {
    const origin = new URL(this.baseUrl).origin;
    for (let hop = 0; ; hop++) {
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          redirect: 'manual',
          headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body,
        });
      } catch (err) {
        throw new UnreachableError(`cannot reach ${this.baseUrl}: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`);
      }
      const location = res.headers.get('location');
      if (res.status < 300 || res.status > 399 || res.status === 304 || !location) return res;
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== origin)
        throw new RedirectError(
          `${method} ${url} was redirected (HTTP ${res.status}) to another server, ${next.origin}: not followed, and nothing was sent there. If that server is the API, use its URL.`,
        );
      if (hop >= MAX_REDIRECTS) throw new RedirectError(`${method} ${url}: more than ${MAX_REDIRECTS} redirects`);
      if (res.status !== 307 && res.status !== 308) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
      }
      url = next.href;
    }
  }
}

function taskIdOf(location: string | null, data: unknown): number | null {
  const m = location ? /\/tasks\/(\d+)$/.exec(location) : null;
  if (m) return Number(m[1]);
  const d = data as { taskId?: unknown } | null;
  return typeof d?.taskId === 'number' ? d.taskId : null;
}
