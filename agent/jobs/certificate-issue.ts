import { createPrivateKey, X509Certificate } from 'node:crypto';
import { serveChallenge, withdrawChallenge } from '../acme/http01-responder.ts';
import { accountKeyPath, accountUrlPath } from '../acme/host-files.ts';
import { readOrNull } from '../drivers/host-files.ts';
import { installCertificate, installPrivateFile, leafOf } from '../drivers/certificate-files.ts';
import type { JobHandler } from './job.ts';

/**
 * `certificate.issue` (managed certificates, E22, renewals): the ACME flow with acme-client against the
 * task's directory — the account key is read from the host (made there, ECDSA P-256, on first use), a new
 * ECDSA P-256 certificate key is made here on the host, the HTTP-01 challenge is answered by the agent's own
 * responder, and the certificate (full chain) and its key are installed atomically with mode 0600. The result
 * is the fingerprint and validity; an ACME failure fails the task with the server's problem detail.
 */
export const certificateIssue: JobHandler<'certificate.issue'> = async (ctx, p) => {
  // acme-client (with its crypto and HTTP stack) loads when an issuance runs, not at agent start: ≈ 28 MB of RSS
  const { acme, acmeClient } = await import('../acme/client.ts');
  await ctx.progress('submitting', 10, `ACME order for ${p.domain} at ${p.directoryUrl}`);
  const accountPath = accountKeyPath(p.directoryUrl);
  let accountKey = await readOrNull(ctx.exec, accountPath);
  const fresh = !accountKey;
  if (!accountKey) {
    accountKey = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
    await installPrivateFile(ctx.exec, accountPath, accountKey);
  }
  const accountUrl = (await readOrNull(ctx.exec, accountUrlPath(p.directoryUrl)))?.trim() || undefined;
  const client = acmeClient(p.directoryUrl, accountKey, accountUrl);
  const [key, csr] = await acme.crypto.createCsr({ commonName: p.domain, altNames: [p.domain] }, await acme.crypto.createPrivateEcdsaKey('P-256'));
  let chain: string;
  try {
    if (!accountUrl) {
      // a new key registers; a known key whose URL is not on file looks its account up (an update would be refused)
      await client.createAccount(fresh ? { termsOfServiceAgreed: true } : { onlyReturnExisting: true });
      await installPrivateFile(ctx.exec, accountUrlPath(p.directoryUrl), `${client.getAccountUrl()}\n`);
    }
    chain = await client.auto({
      csr,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // the responder is this process: fetching ourselves proves nothing; the ACME server's validation is the check
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        if (challenge.type !== 'http-01') throw new Error(`only HTTP-01 challenges are answered, not ${challenge.type}`);
        await serveChallenge(challenge.token, keyAuthorization);
        await ctx.progress('processing', 40, `answering the HTTP-01 challenge for ${p.domain}`);
      },
      // auto() calls this for every challenge whose create it called (succeeded or threw), and returns or
      // throws only after all of them settled: nothing is left answering once it ends
      challengeRemoveFn: async (_authz, challenge) => withdrawChallenge(challenge.token),
    });
  } catch (err) {
    throw new Error(`ACME issuance for ${p.domain} failed: ${(err as Error).message}`);
  }
  if (!chain.includes('-----END CERTIFICATE-----')) throw new Error('the ACME server returned no PEM certificate');
  const leaf = new X509Certificate(leafOf(chain));
  if (!leaf.checkPrivateKey(createPrivateKey(key))) throw new Error('the issued certificate does not match the key made for it');
  await ctx.progress('installing', 80, `installing ${p.name}`);
  const installed = await installCertificate(ctx.exec, p.name, chain, key.toString());
  await ctx.progress('installed', 100, `${installed.path}: ${installed.fingerprint}`);
  return installed;
};
