import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { upstreamFailed } from '#shared/errors/domain-errors';
import type { Cidr } from '#domain/outbound/address-policy';
import { setting } from '#shared/config/read';
import { allowList } from '#domain/outbound/allow-lists';
import { failureReason } from '#domain/outbound/failure';
import { outboundRequest } from '#domain/outbound/http-request';

/**
 * Which ACME server a managed certificate is issued by: configuration, per the certificate's `staging` flag.
 *   HM_ACME_DIRECTORY_URL          production directory (default: Let's Encrypt's)
 *   HM_ACME_STAGING_DIRECTORY_URL  staging directory (default: Let's Encrypt's staging)
 *   HM_ACME_CA_FILE                PEM CA certificates trusted for the directory besides the system's (a test CA)
 * TLS verification is never turned off.
 */
export function acmeDirectoryUrl(staging: boolean, env: NodeJS.ProcessEnv = process.env): string {
  return staging ? setting('HM_ACME_STAGING_DIRECTORY_URL', env) : setting('HM_ACME_DIRECTORY_URL', env);
}

/** How long the directory may take to answer, all of it (connection, headers and body), before it counts as unreachable. */
const ACME_PROBE_TIMEOUT_MS = 5000;

/**
 * GETs the ACME directory under the outbound-address policy (allow-list `HM_ACME_ALLOW_CIDRS`, for a test CA on
 * loopback) and checks it is one (a JSON object naming `newOrder`); anything else — a refused address, no
 * connection, a TLS failure, no whole answer within the deadline, another status — is 502 acme_unreachable,
 * naming the URL and a fixed reason (never the server's text).
 */
export async function probeAcmeDirectory(url: string, o: { timeoutMs?: number; caFile?: string; allow?: readonly Cidr[] } = {}): Promise<void> {
  const caFile = o.caFile ?? setting('HM_ACME_CA_FILE');
  const fail = (why: string) => upstreamFailed('acme_unreachable', `the ACME directory ${url} did not answer: ${why}`);
  let ca: string[] | undefined;
  try {
    ca = caFile ? [...rootCertificates, readFileSync(caFile, 'utf8')] : undefined;
  } catch {
    throw fail(`its CA file ${caFile} cannot be read`);
  }
  const timeoutMs = o.timeoutMs ?? ACME_PROBE_TIMEOUT_MS;
  const res = await outboundRequest({ url, method: 'GET', headers: { accept: 'application/json' }, allow: o.allow ?? allowList('acme'), timeoutMs, ca }).catch(
    (err: unknown) => {
      const why = failureReason(err);
      throw fail(why === 'ETIMEDOUT' ? `no whole answer within ${timeoutMs} ms` : why);
    },
  );
  if (res.status !== 200) throw fail(`HTTP ${res.status}`);
  let dir: unknown;
  try {
    dir = JSON.parse(res.body);
  } catch {
    throw fail('the answer is not JSON');
  }
  if (!dir || typeof dir !== 'object' || typeof (dir as { newOrder?: unknown }).newOrder !== 'string')
    throw fail('the answer is not an ACME directory (no newOrder)');
}
