import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SelfSigned {
  /** the certificate, PEM */
  cert: string;
  /** its private key, PEM (unencrypted) */
  key: string;
}

/**
 * A fresh self-signed certificate for `name` (CN and a DNS subjectAltName), made by the openssl CLI with argv only,
 * so the tests' certificates are independent of the code under test. `ec` makes a P-256 key, `rsa` a 2048-bit one.
 */
export function selfSignedCertificate(name: string, opts: { key?: 'ec' | 'rsa'; days?: number } = {}): SelfSigned {
  const dir = mkdtempSync(join(tmpdir(), 'hm-self-signed-'));
  const newkey = opts.key === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', ...newkey, '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', String(opts.days ?? 30)].concat([
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
      ]),
      { cwd: dir, stdio: 'ignore' },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
