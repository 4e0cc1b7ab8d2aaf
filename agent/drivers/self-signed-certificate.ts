import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// node:crypto's WebCrypto is what @peculiar/x509 signs with (its Crypto type is the DOM's, the same interface)
x509.cryptoProvider.set(webcrypto as never);

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;

/**
 * A new ECDSA P-256 key and a self-signed certificate for `domain` (subject CN and the only subjectAltName,
 * a TLS server certificate, not a CA), valid from now for `validityDays`: both PEM (the key PKCS#8).
 */
export async function makeSelfSignedCertificate(
  domain: string,
  validityDays: number,
  now: Date = new Date(),
): Promise<{ certificatePem: string; keyPem: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    // a positive serial of 128 random bits (leading 0 nibble keeps it positive)
    serialNumber: `0${randomBytes(16).toString('hex').slice(1)}`,
    name: [{ CN: [domain] }],
    notBefore,
    notAfter: new Date(notBefore.getTime() + validityDays * 24 * 60 * 60 * 1000),
    signingAlgorithm: alg,
    keys: keys as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: domain }]),
    ],
  });
  const keyDer = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certificatePem: cert.toString('pem') + '\n', keyPem: pem('PRIVATE KEY', keyDer) };
}
