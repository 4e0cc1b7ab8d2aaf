import { installCertificate } from '../drivers/certificate-files.ts';
import type { JobHandler } from './job.ts';

/**
 * `certificate.self-sign`: a new ECDSA P-256 key and a self-signed certificate for the domain are made here on
 * the host (the key never leaves it) and installed as `<name>.crt`/`<name>.key`, atomically with mode 0600.
 * The result is the installed certificate's fingerprint and validity.
 */
export const certificateSelfSign: JobHandler<'certificate.self-sign'> = async (ctx, p) => {
  await ctx.progress('installing', 30, `making a self-signed certificate for ${p.domain}`);
  // @peculiar/x509 loads when a certificate is made, not at agent start: ≈ 20 MB of RSS
  const { makeSelfSignedCertificate } = await import('../drivers/self-signed-certificate.ts');
  const made = await makeSelfSignedCertificate(p.domain, p.validityDays);
  const installed = await installCertificate(ctx.exec, p.name, made.certificatePem, made.keyPem);
  await ctx.progress('installed', 100, `${installed.path}: ${installed.fingerprint}`);
  return installed;
};
