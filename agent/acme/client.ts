import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import acme from 'acme-client';

/**
 * acme-client, with the CA certificates trusted for the ACME server: the system's, plus those in
 * HM_ACME_CA_FILE when set (a test server's CA, e.g. pebble's). TLS verification is never turned off.
 */
let configuredFor: string | undefined;

export function acmeClient(directoryUrl: string, accountKey: string, accountUrl?: string): acme.Client {
  const caFile = process.env.HM_ACME_CA_FILE || '';
  if (configuredFor !== caFile) {
    acme.axios.defaults.httpsAgent = caFile ? new Agent({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')] }) : undefined;
    configuredFor = caFile;
  }
  return new acme.Client({ directoryUrl, accountKey, ...(accountUrl ? { accountUrl } : {}) });
}

export { acme };
