import { X509Certificate } from 'node:crypto';
import { runChecked, type Executor } from '../executors/executor.ts';
import { readOrNull, teeFile } from './host-files.ts';

/**
 * Where certificates live on the host, whatever made them (ACME, an import, self-signed): under
 * /usr/local/etc/ssl/hostmgr as `<name>.crt` (the certificate then its chain, PEM) and `<name>.key`, both 0600.
 */
const CERT_DIR = '/usr/local/etc/ssl/hostmgr';

const certificatePaths = (name: string) => ({ crt: `${CERT_DIR}/${name}.crt`, key: `${CERT_DIR}/${name}.key` });

/**
 * Writes `path` atomically with mode 0600: an empty temp file beside it is made and restricted first, the
 * content goes into it, and a rename puts it in place — a reader sees the old file or the new one, and the
 * content is never readable by others, not even for a moment.
 */
export async function installPrivateFile(exec: Executor, path: string, content: string): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf('/')) || '/';
  const tmp = `${path}.hostmgr-new`;
  await runChecked(exec, ['mkdir', '-p', dir]);
  await teeFile(exec, tmp, '');
  await runChecked(exec, ['chmod', '600', tmp]);
  await teeFile(exec, tmp, content);
  await runChecked(exec, ['mv', tmp, path]);
}

/** The first certificate of a PEM chain (the leaf). */
export function leafOf(chain: string): string {
  const end = '-----END CERTIFICATE-----';
  const i = chain.indexOf(end);
  if (i < 0) throw new Error('no PEM certificate');
  return chain.slice(chain.indexOf('-----BEGIN CERTIFICATE-----'), i + end.length);
}

/** What a certificate job reports: SHA-256 fingerprint (as `openssl x509 -fingerprint -sha256`), validity, path. */
interface InstalledCertificate {
  fingerprint: string;
  notBefore: string;
  notAfter: string;
  path: string;
}

/**
 * Installs a certificate (with its chain) and its key as `<name>.crt`/`<name>.key` — the key first, so a
 * certificate is never in place without its key — then reads the certificate back from the host and reports
 * what is there.
 */
export async function installCertificate(exec: Executor, name: string, chainPem: string, keyPem: string): Promise<InstalledCertificate> {
  const paths = certificatePaths(name);
  await installPrivateFile(exec, paths.key, keyPem);
  await installPrivateFile(exec, paths.crt, chainPem);
  const written = await readOrNull(exec, paths.crt);
  if (!written) throw new Error(`${paths.crt} is not on the host after installing it`);
  const leaf = new X509Certificate(leafOf(written));
  return {
    fingerprint: leaf.fingerprint256,
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    path: paths.crt,
  };
}
