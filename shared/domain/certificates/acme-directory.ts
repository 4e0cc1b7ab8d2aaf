import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { upstreamFailed } from '#shared/errors/domain-errors';

/**
 * Which ACME server a managed certificate is issued by: configuration, per the certificate's `staging` flag.
 *   HM_ACME_DIRECTORY_URL          production directory (default: Let's Encrypt's)
 *   HM_ACME_STAGING_DIRECTORY_URL  staging directory (default: Let's Encrypt's staging)
 *   HM_ACME_CA_FILE                PEM CA certificates trusted for the directory besides the system's (a test CA)
 * TLS verification is never turned off.
 */
const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';
const LETS_ENCRYPT_STAGING_DIRECTORY = 'https://acme-staging-v02.api.letsencrypt.org/directory';

export function acmeDirectoryUrl(staging: boolean, env: NodeJS.ProcessEnv = process.env): string {
  return staging ? env.HM_ACME_STAGING_DIRECTORY_URL || LETS_ENCRYPT_STAGING_DIRECTORY : env.HM_ACME_DIRECTORY_URL || LETS_ENCRYPT_DIRECTORY;
}

/** How long the directory may take to answer before it counts as unreachable. */
const ACME_PROBE_TIMEOUT_MS = 5000;

/**
 * GETs the ACME directory and checks it is one (a JSON object naming `newOrder`); anything else — no
 * connection, a TLS failure, a timeout, another status — is 502 acme_unreachable, naming the URL and the reason.
 */
export async function probeAcmeDirectory(url: string, o: { timeoutMs?: number; caFile?: string } = {}): Promise<void> {
  const caFile = o.caFile ?? process.env.HM_ACME_CA_FILE;
  const fail = (why: string) => upstreamFailed('acme_unreachable', `the ACME directory ${url} did not answer: ${why}`);
  let ca: string[] | undefined;
  try {
    ca = caFile ? [...rootCertificates, readFileSync(caFile, 'utf8')] : undefined;
  } catch (err) {
    throw fail(`its CA file ${caFile} cannot be read (${(err as Error).message})`);
  }
  const body = await new Promise<string>((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'http:' ? httpRequest : httpsRequest)(u, { method: 'GET', timeout: o.timeoutMs ?? ACME_PROBE_TIMEOUT_MS, ...(ca ? { ca } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (text.length < 65536) text += c;
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${o.timeoutMs ?? ACME_PROBE_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  }).catch((err: Error) => {
    throw fail(err.message || String(err));
  });
  let dir: unknown;
  try {
    dir = JSON.parse(body);
  } catch {
    throw fail('the answer is not JSON');
  }
  if (!dir || typeof dir !== 'object' || typeof (dir as { newOrder?: unknown }).newOrder !== 'string') throw fail('the answer is not an ACME directory (no newOrder)');
}
