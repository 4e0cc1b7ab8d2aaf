import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { invalid, ValidationError } from '#shared/errors/domain-errors';
import { certificateDomainSchema } from './rules.ts';

/** What an imported certificate's record takes from the certificate itself. */
interface ImportedCertificate {
  domain: string;
  fingerprint: string;
  notBefore: Date;
  notAfter: Date;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
// the names compared are lowercased: the schema's rule for a certificate's domain
const DOMAIN = new RegExp(certificateDomainSchema.pattern);

/** The DNS names a certificate is for: its subjectAltName DNS entries, then its subject CN. */
function certificateNames(x: X509Certificate): string[] {
  const sans = (x.subjectAltName ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4).toLowerCase());
  const cn = /^CN=(.+)$/m.exec(x.subject)?.[1]?.trim().toLowerCase();
  return cn && !sans.includes(cn) ? [...sans, cn] : sans;
}

/** `name` covers `domain`: equal, or a wildcard `*.parent` for exactly one label more. */
const covers = (name: string, domain: string) => name === domain || (name.startsWith('*.') && domain.slice(domain.indexOf('.') + 1) === name.slice(2));

/**
 * An imported certificate checked before anything is stored: `certificatePem` holds a parseable X.509
 * certificate (the leaf first, optionally followed by its chain), `privateKeyPem` an unencrypted PEM private
 * key that belongs to that leaf (400 certificate_key_mismatch), the leaf has not expired (400
 * certificate_expired) and is valid already (400 certificate_not_yet_valid: `notBefore` in the future), and the record's domain is the one given (which the leaf must name, wildcards
 * included; 400 certificate_domain_mismatch) or else the leaf's first DNS name. Messages never quote the key.
 */
export function checkImportedCertificate(c: { certificatePem: string; privateKeyPem: string; domain?: string }, now: Date = new Date()): ImportedCertificate {
  const blocks = c.certificatePem.match(PEM_CERTIFICATE) ?? [];
  if (!blocks.length) throw new ValidationError([{ field: 'certificatePem', problem: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' }]);
  let chain: X509Certificate[];
  try {
    chain = blocks.map((b) => new X509Certificate(b));
  } catch {
    throw new ValidationError([{ field: 'certificatePem', problem: 'is not a parseable X.509 certificate' }]);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: c.privateKeyPem, format: 'pem' });
  } catch {
    throw new ValidationError([{ field: 'privateKeyPem', problem: 'is not a parseable, unencrypted PEM private key' }]);
  }
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(key))
    throw invalid('certificate_key_mismatch', 'privateKeyPem: the private key does not belong to the (first) certificate in certificatePem');
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now.getTime()) throw invalid('certificate_expired', `certificatePem: the certificate expired at ${notAfter.toISOString()}`);
  const notBefore = new Date(leaf.validFrom);
  // installed now, a certificate not valid yet would be refused by every client until then
  if (notBefore.getTime() > now.getTime())
    throw invalid('certificate_not_yet_valid', `certificatePem: the certificate is not valid before ${notBefore.toISOString()}`);
  const names = certificateNames(leaf);
  let domain: string;
  if (c.domain !== undefined) {
    domain = c.domain.toLowerCase();
    if (!names.some((n) => covers(n, domain)))
      throw invalid('certificate_domain_mismatch', `domain: the certificate is for ${names.join(', ') || 'no DNS name'}, not ${domain}`);
  } else {
    const first = names.find((n) => DOMAIN.test(n));
    if (!first)
      throw new ValidationError([{ field: 'domain', problem: `is required: the certificate names no plain DNS name (${names.join(', ') || 'none'})` }]);
    domain = first;
  }
  return { domain, fingerprint: leaf.fingerprint256, notBefore, notAfter };
}
