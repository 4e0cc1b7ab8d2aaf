import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { invalid } from '#shared/errors/domain-errors';
import type { Cidr } from '#domain/outbound/address-policy';
import { allowList } from '#domain/outbound/allow-lists';
import { OutboundFailure } from '#domain/outbound/failure';
import { AddressRefused, bareHost as bare, resolvePinned, systemResolver, type Pinned, type Resolver } from '#domain/outbound/resolve';
import { advertisedFilename } from './filename.ts';

/**
 * The filename probe (E8): a best-effort request, from the function, to a URL a user gave — an SSRF door, so:
 * http and https only; the host is resolved once and every address it resolves to must pass the outbound-address
 * policy (#domain/outbound/resolve, allow-list `HM_PROBE_ALLOW_CIDRS`);
 * the connection goes to the checked address (no second lookup); at most 5 redirects, each checked the same
 * way; 10 s for everything. HEAD first, a ranged GET of one byte when HEAD is refused. `ignoreTLS` skips
 * certificate verification and nothing else.
 *
 * Refusals by policy throw `invalid` (scheme, address, redirects). Everything the source does wrong (no
 * answer, too slow, an error status, a bad certificate) is an outcome with an empty filename.
 */

const MAX_REDIRECTS = 5;
const PROBE_TIMEOUT_MS = 10_000;

type ProbeOutcome =
  | 'filename_detected'
  | 'no_filename_advertised'
  | 'source_unreachable'
  | 'source_timeout'
  | 'source_error_status'
  | 'source_tls_error'
  | 'source_bad_redirect';

interface ProbeResult {
  filename: string;
  outcome: ProbeOutcome;
}

interface ProbeRequest {
  url: string;
  ignoreTLS?: boolean;
}

interface ProbeOptions {
  /** ranges admitted despite the policy (tests only); default: the `HM_PROBE_ALLOW_CIDRS` setting (allow-lists.ts) */
  allow?: readonly Cidr[];
  timeoutMs?: number;
  /** the resolver (default: the system's, `dns.lookup`); called once per URL the probe visits */
  resolve?: Resolver;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/**
 * statuses by which a server refuses HEAD itself: 405/501, and 400/403 from servers that sign or route GET only
 * (pre-signed object-store links answer a HEAD with 403)
 */
const HEAD_REFUSED = new Set([400, 403, 405, 501]);

/** Ends the probe early with an outcome (never leaves this module). */
class Outcome extends Error {
  constructor(readonly outcome: ProbeOutcome) {
    super(outcome);
  }
}

export async function detectFilename(req: ProbeRequest, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const allow = opts.allow ?? allowList('probe');
  const signal = AbortSignal.timeout(opts.timeoutMs ?? PROBE_TIMEOUT_MS);
  let url = checkedUrl(parseUrl(req.url));
  try {
    for (let redirects = 0; ; redirects++) {
      const address = await resolveChecked(url, allow, opts.resolve ?? systemResolver, signal);
      let res = await send(url, address, 'HEAD', req.ignoreTLS === true, signal);
      if (HEAD_REFUSED.has(res.status)) res = await send(url, address, 'GET', req.ignoreTLS === true, signal);
      if (REDIRECTS.has(res.status) && res.location !== undefined) {
        if (redirects >= MAX_REDIRECTS) throw invalid('too_many_redirects', `url: more than ${MAX_REDIRECTS} redirects`);
        url = checkedUrl(nextUrl(res.location, url));
        continue;
      }
      if (res.status >= 400) return { filename: '', outcome: 'source_error_status' };
      const filename = advertisedFilename(res.disposition, url);
      return { filename, outcome: filename ? 'filename_detected' : 'no_filename_advertised' };
    }
  } catch (err) {
    if (err instanceof Outcome) return { filename: '', outcome: err.outcome };
    throw err;
  }
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw invalid('invalid_url', 'url: not an absolute URL');
  }
}

function nextUrl(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new Outcome('source_bad_redirect');
  }
}

/** The URL as the probe may request it: http or https, no credentials sent, no fragment. */
function checkedUrl(url: URL): URL {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid('unsupported_scheme', `url: scheme ${url.protocol.replace(/:$/, '')} is not allowed; use http or https`);
  }
  return url;
}

const bareHost = (url: URL) => bare(url.hostname);

/** Resolves the host once and checks every address (the shared policy); returns the one to connect to. */
async function resolveChecked(url: URL, allow: readonly Cidr[], resolve: Resolver, signal: AbortSignal): Promise<Pinned> {
  const host = bareHost(url);
  try {
    return await resolvePinned(host, allow, resolve, signal);
  } catch (err) {
    if (err instanceof AddressRefused) {
      throw invalid('address_not_allowed', `url: ${host === err.address ? 'address' : `${host} resolves to`} ${err.address}, a ${err.range} address`);
    }
    throw new Outcome(err instanceof OutboundFailure && err.reason === 'ETIMEDOUT' ? 'source_timeout' : 'source_unreachable');
  }
}

interface Head {
  status: number;
  location?: string;
  disposition?: string;
}

const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_TLS_CERT|ERR_SSL_)/;

/** One request to the pinned address; resolves with the status and the headers the probe reads. */
function send(url: URL, to: Pinned, method: 'HEAD' | 'GET', ignoreTLS: boolean, signal: AbortSignal): Promise<Head> {
  const secure = url.protocol === 'https:';
  const host = bareHost(url);
  const options: https.RequestOptions = {
    host: to.address,
    family: to.family,
    port: url.port || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method,
    agent: false,
    signal,
    headers: {
      host: url.host,
      'user-agent': 'hostmgr-filename-probe',
      accept: '*/*',
      ...(method === 'GET' ? { range: 'bytes=0-0' } : {}),
    },
  };
  if (secure) {
    // SNI and the certificate check use the URL's name; an IP literal is checked against the certificate as is
    if (!isIP(host)) options.servername = host;
    options.rejectUnauthorized = !ignoreTLS;
  }
  return new Promise<Head>((resolve, reject) => {
    const r = (secure ? https : http).request(options, (res) => {
      const header = (name: string) => {
        const v = res.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      resolve({ status: res.statusCode ?? 0, location: header('location'), disposition: header('content-disposition') });
      res.destroy();
    });
    r.on('error', (err: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(new Outcome('source_timeout'));
      else if (TLS_CODES.test(err.code ?? '')) reject(new Outcome('source_tls_error'));
      else reject(new Outcome('source_unreachable'));
    });
    r.end();
  });
}
