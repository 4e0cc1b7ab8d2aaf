import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/**
 * The AWS credentials the agent signs its queue calls with. A local queue (fauxqs) takes any: the environment's
 * keys or a placeholder. Against AWS, keys in the environment are used as they are, as the SDK's default chain
 * does first unless AWS_PROFILE names a profile; anything else (a profile, SSO, an instance role) goes to that
 * chain itself, `@aws-sdk/credential-provider-node`, loaded only then — a host given keys in its environment
 * never holds it.
 */
export function agentCredentials(localQueue: boolean, env: NodeJS.ProcessEnv = process.env): AwsCredentialIdentityProvider {
  const fromEnv = (): AwsCredentialIdentity | undefined =>
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  if (localQueue) {
    const creds = fromEnv() ?? { accessKeyId: 'local', secretAccessKey: 'local' };
    return async () => creds;
  }
  const keys = env.AWS_PROFILE ? undefined : fromEnv();
  if (keys) return async () => keys;
  // the chain memoizes what it resolves and refreshes it before it expires
  let chain: Promise<AwsCredentialIdentityProvider> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await chain)();
  };
}
