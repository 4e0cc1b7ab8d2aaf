import { createServer, request, type Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A plain HTTP reverse proxy in front of the API that a test can take down (connections refused) and bring
 * back on the same port: "the report endpoint is down for a while" with real sockets and a real agent.
 */
export interface Proxy {
  url: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
  /** requests forwarded, by path */
  seen: string[];
}

export async function startProxy(targetApiUrl: string): Promise<Proxy> {
  const target = new URL(targetApiUrl);
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        const up = request(
          { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        up.on('error', () => {
          res.writeHead(502);
          res.end();
        });
        req.pipe(up);
      });
      s.on('connection', (c) => {
        sockets.add(c);
        c.on('close', () => sockets.delete(c));
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const down = async () => {
    const s = server;
    server = null;
    if (!s) return;
    for (const c of sockets) c.destroy();
    await new Promise((r) => s.close(() => r(null)));
  };
  await listen();
  const base = targetApiUrl.replace(/^https?:\/\/[^/]+/, '');
  return { url: `http://127.0.0.1:${port}${base}`, down, up: () => (server ? Promise.resolve() : listen()), close: down, seen };
}
