import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './self-signed.ts';

/** Real HTTP(S) servers on loopback that the filename probe (E8) is pointed at. */

export interface Source {
  /** `http://host:port` (IPv6 hosts bracketed) */
  origin: string;
  port: number;
  /** every request seen: method, path, Range and Host headers */
  seen: Array<{ method: string; path: string; range?: string; host?: string }>;
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listen(server: http.Server | https.Server, host: string, scheme: 'http' | 'https', seen: Source['seen'], port = 0): Promise<Source> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    origin: `${scheme}://${shown}:${bound}`,
    port: bound,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const recorder =
  (seen: Source['seen'], handler: Handler): Handler =>
  (req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', range: req.headers.range, host: req.headers.host });
    handler(req, res);
  };

/** An HTTP source on `host` (and `port`, default any free one). */
export function httpSource(host: string, handler: Handler, port = 0): Promise<Source> {
  const seen: Source['seen'] = [];
  return listen(http.createServer(recorder(seen, handler)), host, 'http', seen, port);
}

/** An HTTPS source with a fresh self-signed certificate for `localhost`. */
export function httpsSource(host: string, handler: Handler): Promise<Source> {
  const { key, cert } = selfSignedCertificate('localhost', { key: 'rsa', days: 1 });
  const seen: Source['seen'] = [];
  return listen(https.createServer({ key, cert }, recorder(seen, handler)), host, 'https', seen);
}

/** A source that answers every request with this filename, so a probe that reached it would report it. */
export const advertising =
  (filename: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-disposition': `attachment; filename="${filename}"`, 'content-length': '0' });
    res.end();
  };

/** A free port on `host` with nothing listening (bound, then released). */
export async function closedPort(host: string): Promise<number> {
  const s = await httpSource(host, () => undefined);
  await s.close();
  return s.port;
}
