import { installCertificate } from '../drivers/certificate-files.ts';
import type { JobHandler } from './job.ts';

/**
 * `certificate.install` (imported certificates): the given certificate (with its chain) and its private key
 * are installed as `<name>.crt`/`<name>.key`, atomically with mode 0600, and the certificate is read back. The
 * result is what the host holds — its fingerprint must be the one the control plane recorded, else the task
 * fails. The key is never echoed in output or errors.
 */
export const certificateInstall: JobHandler<'certificate.install'> = async (ctx, p) => {
  if (!p.privateKeyPem) throw new Error(`certificate ${p.certificateId}: the task carries no private key (it was scrubbed; import the certificate again)`);
  await ctx.progress('installing', 50, `installing ${p.name}`);
  const installed = await installCertificate(ctx.exec, p.name, p.certificatePem, p.privateKeyPem);
  if (installed.fingerprint !== p.fingerprint)
    throw new Error(`${installed.path} holds certificate ${installed.fingerprint}, not the imported ${p.fingerprint}`);
  await ctx.progress('installed', 100, `${installed.path}: ${installed.fingerprint}`);
  return installed;
};
