import { createHash } from 'node:crypto';
import { runChecked, type Executor } from '../executors/executor.ts';
import { readOrNull } from '../drivers/host-files.ts';

/**
 * Where ACME material lives on the host: the account key per ACME directory under /var/db/hostmgr/acme,
 * certificates and their keys under /usr/local/etc/ssl/hostmgr as `<name>.crt` (the full chain, PEM) and
 * `<name>.key`. Keys never leave the host.
 */
export const ACME_STATE_DIR = '/var/db/hostmgr/acme';
export const CERT_DIR = '/usr/local/etc/ssl/hostmgr';

const accountBase = (directoryUrl: string) => `${ACME_STATE_DIR}/account-${createHash('sha256').update(directoryUrl).digest('hex').slice(0, 16)}`;
/** the ACME account's key (PEM) for one directory */
export const accountKeyPath = (directoryUrl: string) => `${accountBase(directoryUrl)}.key`;
/** the account's URL at that directory, once registered (later orders reuse the account) */
export const accountUrlPath = (directoryUrl: string) => `${accountBase(directoryUrl)}.url`;
export const certificatePaths = (name: string) => ({ crt: `${CERT_DIR}/${name}.crt`, key: `${CERT_DIR}/${name}.key` });

/**
 * Writes `path` atomically with mode 0600: an empty temp file beside it is made and restricted first, the
 * content goes into it, and a rename puts it in place — a reader sees the old file or the new one, and the
 * content is never readable by others, not even for a moment.
 */
export async function installPrivateFile(exec: Executor, path: string, content: string): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf('/')) || '/';
  const tmp = `${path}.hostmgr-new`;
  await runChecked(exec, ['mkdir', '-p', dir]);
  await runChecked(exec, ['tee', tmp], { stdin: '' });
  await runChecked(exec, ['chmod', '600', tmp]);
  await runChecked(exec, ['tee', tmp], { stdin: content });
  await runChecked(exec, ['mv', tmp, path]);
}

export const readHostFile = readOrNull;
