import { setting } from '#shared/config/read';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import acme from 'acme-client';

/**
 * acme-client, with the CA certificates trusted for the ACME server: the system's, plus those in
 * HM_ACME_CA_FILE when set (a test server's CA, e.g. pebble's). TLS verification is never turned off.
 * A request that gets no answer, a 5xx or a 429 is retried HM_ACME_RETRIES times (1; acme-client's own default
 * of 5 with growing delays keeps a task 75 s on an unreachable server): the task fails with the reason, and
 * renewals back off on their own.
 */
let configuredFor: string | undefined;

export function acmeClient(directoryUrl: string, accountKey: string, accountUrl?: string): acme.Client {
  const caFile = setting('HM_ACME_CA_FILE') ?? '';
  if (configuredFor !== caFile) {
    acme.axios.defaults.httpsAgent = caFile ? new Agent({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')] }) : undefined;
    configuredFor = caFile;
  }
  const settings = (acme.axios.defaults as { acmeSettings?: { retryMaxAttempts: number; retryDefaultDelay: number } }).acmeSettings;
  if (settings) Object.assign(settings, { retryMaxAttempts: setting('HM_ACME_RETRIES'), retryDefaultDelay: 1 });
  return new acme.Client({ directoryUrl, accountKey, ...(accountUrl ? { accountUrl } : {}) });
}

export { acme };
