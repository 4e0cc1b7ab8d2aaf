/**
 * An HTTP proxy in front of one server that counts the requests passing through it, by a key of the
 * request: an SQS API call by its `x-amz-target` (the JSON protocol: `AmazonSQS.ReceiveMessage`), an API
 * request by method and path. The idle agent's request rates are counted here, on the wire.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  counts: Map<string, number>;
  close(): Promise<void>;
}

export async function countingProxy(target: string, keyOf: (req: IncomingMessage) => string): Promise<CountingProxy> {
  const to = new URL(target);
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const key = keyOf(req);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const up = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${to.pathname === '/' ? '' : to.pathname}`,
    counts,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The SQS action of a request (JSON protocol header, else the query protocol's Action in the URL). */
export const sqsAction = (req: IncomingMessage): string =>
  String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '') || /[?&]Action=([^&]+)/.exec(req.url ?? '')?.[1] || 'other';

/** An API request as `METHOD /path` without its query. */
export const apiRoute = (req: IncomingMessage): string => `${req.method} ${(req.url ?? '').split('?')[0]}`;
