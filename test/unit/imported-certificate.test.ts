import { X509Certificate } from 'node:crypto';
import { checkImportedCertificate } from '#domain/certificates/imported';
import { DomainError } from '#shared/errors/domain-errors';
import { selfSignedCertificate } from '../helpers/self-signed.ts';

/**
 * The validity window of an imported certificate, checked at the instant given: a certificate whose `notBefore` is
 * still ahead is refused like an expired one (400 naming certificatePem). The PEMs are made by the openssl CLI.
 */
let pem: { crt: string; key: string };

beforeAll(() => {
  const { cert, key } = selfSignedCertificate('soon.example.com');
  pem = { crt: cert, key };
});

test('a certificate not valid yet (notBefore 100 days ahead of now) is refused with 400 naming certificatePem', () => {
  const notBefore = new Date(new X509Certificate(pem.crt).validFrom);
  const now = new Date(notBefore.getTime() - 100 * 86400_000);
  let err: unknown;
  try {
    checkImportedCertificate({ certificatePem: pem.crt, privateKeyPem: pem.key }, now);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject({
    kind: 'invalid',
    code: 'certificate_not_yet_valid',
    detail: `certificatePem: the certificate is not valid before ${notBefore.toISOString()}`,
  });
});

test('within its window it is accepted, with its dates', () => {
  const x = new X509Certificate(pem.crt);
  const got = checkImportedCertificate({ certificatePem: pem.crt, privateKeyPem: pem.key }, new Date(new Date(x.validFrom).getTime() + 1000));
  expect(got).toMatchObject({ domain: 'soon.example.com', notBefore: new Date(x.validFrom), notAfter: new Date(x.validTo) });
});
