import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';

// through require, not an ESM import: importing node:http builds its ESM facade, which reads every export, and on
// Node 24 node:http's lazy web exports load undici (the bundle takes every builtin this way: builtins-require.ts)
const load = createRequire(import.meta.url);
const { request: httpRequest } = load('node:http') as typeof import('node:http');
const { request: httpsRequest } = load('node:https') as typeof import('node:https');

export interface HttpAnswer {
  status: number;
  text: string;
  headers: IncomingHttpHeaders;
}

/**
 * One HTTP(S) request with a text answer, through node:http/https rather than fetch: fetch loads Node's
 * bundled undici on first use, which an idle agent then carries for good (measured on Node 24: 20 POSTs to a
 * local server left 79 MiB RSS through fetch, 52 MiB through node:http). `timeoutMs` bounds the whole
 * exchange; `signal` abandons it. It trusts what fetch trusts: Node's CA store plus NODE_EXTRA_CA_CERTS; it follows no redirects (the API makes none).
 */
export function httpText(
  url: string,
  o: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<HttpAnswer> {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? httpsRequest : u.protocol === 'http:' ? httpRequest : null;
  if (!send) return Promise.reject(new Error(`unsupported protocol in ${u.origin}`));
  return new Promise((resolve, reject) => {
    const body = o.body === undefined ? undefined : Buffer.from(o.body);
    const sized = body !== undefined && !Object.keys(o.headers).some((h) => h.toLowerCase() === 'content-length');
    const req = send(
      u,
      { method: o.method, headers: { ...o.headers, ...(sized ? { 'content-length': String(body.length) } : {}) } },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer from ${u.origin} within ${o.timeoutMs} ms`)), o.timeoutMs);
    const abort = () => req.destroy(new Error(`request to ${u.origin} aborted`));
    if (o.signal?.aborted) abort();
    o.signal?.addEventListener('abort', abort, { once: true });
    req.on('error', reject);
    req.on('close', () => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', abort);
    });
    req.end(body);
  });
}
