import { createHash } from 'node:crypto';

/**
 * Where ACME material lives on the host: the account key per ACME directory under /var/db/hostmgr/acme (the
 * certificates themselves: agent/drivers/certificate-files.ts). Keys never leave the host.
 */
const ACME_STATE_DIR = '/var/db/hostmgr/acme';

const accountBase = (directoryUrl: string) => `${ACME_STATE_DIR}/account-${createHash('sha256').update(directoryUrl).digest('hex').slice(0, 16)}`;
/** the ACME account's key (PEM) for one directory */
export const accountKeyPath = (directoryUrl: string) => `${accountBase(directoryUrl)}.key`;
/** the account's URL at that directory, once registered (later orders reuse the account) */
export const accountUrlPath = (directoryUrl: string) => `${accountBase(directoryUrl)}.url`;
