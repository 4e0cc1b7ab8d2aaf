import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiEvent, lambdaContext } from './events.ts';
import { loadHandler, type Handler } from './invoke.ts';
import type { BuiltFunction } from './routes.ts';

/** Per function: invocations and their durations (what Lambda bills: GB-s = duration × memory). */
export interface InvocationStats {
  count: number;
  totalMs: number;
  /** each invocation's duration, in order */
  ms: number[];
  /** invocations per HTTP status answered */
  statuses: Record<number, number>;
}

/**
 * The built function bundles behind a plain HTTP server, each request one invocation in this process with the
 * event API Gateway (payload 2.0) would deliver: the agent wire (HTTP, JSON, bearer token) and the handlers'
 * real code and store, without serverless-offline's per-invocation cost, which on a small machine saturates
 * long before the functions do. Routes are matched on their templates (`{id}` segments).
 */
export async function startLambdaHttp(
  fns: BuiltFunction[],
  instance: string,
): Promise<{ url: string; stats: Map<string, InvocationStats>; close(): Promise<void> }> {
  const routes = await Promise.all(
    fns.map(async (f) => ({
      fn: f,
      method: f.route.method,
      re: new RegExp(`^${f.route.path.replace(/\{([^}]+)\}/g, '(?<$1>[^/]+)')}$`),
      handler: (await loadHandler(f.bundle, instance)) as Handler,
    })),
  );
  const stats = new Map<string, InvocationStats>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://bench.local');
      const hit = routes.map((r) => ({ r, m: r.method === req.method ? r.re.exec(url.pathname) : null })).find((x) => x.m);
      if (!hit) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"error","message":"not_found","error":"no route","data":null}');
        return;
      }
      const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? null;
      const body = chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined;
      const ev = apiEvent({
        method: hit.r.method,
        route: hit.r.fn.route.path,
        pathParameters: { ...hit.m!.groups },
        query: Object.fromEntries(url.searchParams),
        token,
        body,
      });
      const t = performance.now();
      try {
        const out = await hit.r.handler(ev, lambdaContext(hit.r.fn.module));
        const s = stats.get(hit.r.fn.module) ?? { count: 0, totalMs: 0, ms: [], statuses: {} };
        const ms = performance.now() - t;
        s.count++;
        s.totalMs += ms;
        s.ms.push(ms);
        s.statuses[out.statusCode ?? 200] = (s.statuses[out.statusCode ?? 200] ?? 0) + 1;
        stats.set(hit.r.fn.module, s);
        res.writeHead(out.statusCode ?? 200, { 'content-type': 'application/json', ...(out.headers as Record<string, string>) }).end(out.body ?? '');
      } catch (err) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'error', message: 'internal_error', error: (err as Error).message, data: null }));
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stats, close: () => new Promise<void>((r) => server.close(() => r())) };
}
