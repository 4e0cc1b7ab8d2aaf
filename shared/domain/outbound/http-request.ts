import http from 'node:http';
import https from 'node:https';
import type { Cidr } from './address-policy.ts';
import { OutboundFailure } from './failure.ts';
import { pinnedLookup, resolvePinned, systemResolver, type Resolver } from './resolve.ts';

/**
 * One HTTP(S) request under the outbound-address policy: http and https only, the host resolved once and
 * checked (./resolve.ts), the socket connected to the checked address while the Host header, SNI and the
 * certificate check keep the URL's name. `timeoutMs` bounds everything — resolving, connecting, the answer and
 * its body — so a peer that drips a byte at a time cannot hold the request. Redirects are not followed.
 * Failures are OutboundFailure with a fixed reason (./failure.ts).
 */
export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  allow: readonly Cidr[];
  timeoutMs: number;
  /** CA certificates trusted besides none (default: Node's) */
  ca?: string[];
  /** the body is read up to this many bytes (default 64 KiB), the rest dropped */
  maxBodyBytes?: number;
  resolve?: Resolver;
}

export interface OutboundAnswer {
  status: number;
  body: string;
}

export function checkedHttpUrl(text: string): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new OutboundFailure('invalid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OutboundFailure('scheme not allowed');
  if (u.username || u.password) throw new OutboundFailure('credentials in URL not allowed');
  return u;
}

export async function outboundRequest(req: OutboundRequest): Promise<OutboundAnswer> {
  const url = checkedHttpUrl(req.url);
  const signal = AbortSignal.timeout(req.timeoutMs);
  const pinned = await resolvePinned(url.hostname, req.allow, req.resolve ?? systemResolver, signal);
  const secure = url.protocol === 'https:';
  const limit = req.maxBodyBytes ?? 65536;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(new OutboundFailure('ETIMEDOUT'));
      else
        reject(
          err instanceof OutboundFailure
            ? err
            : new OutboundFailure(typeof err.code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(err.code) ? err.code : 'ECONNRESET'),
        );
    };
    const options: https.RequestOptions = {
      method: req.method,
      headers: { ...(req.headers ?? {}), ...(req.body !== undefined ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}) },
      agent: false,
      signal,
      lookup: pinnedLookup(pinned) as never,
      ...(secure && req.ca ? { ca: req.ca } : {}),
    };
    const r = (secure ? https : http).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < limit) chunks.push(c.subarray(0, limit - size));
        size += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('aborted') as NodeJS.ErrnoException));
    });
    r.on('error', fail);
    r.end(req.body);
  });
}
