import { setting } from '#shared/config/read';

/**
 * Where the store's connection string comes from: `DATABASE_URL` (npm start, the tests, scripts), else — in a
 * deployed function — the SSM parameter named by `HM_DATABASE_URL_PARAMETER` (a SecureString, or a Secrets
 * Manager secret through SSM's `/aws/reference/secretsmanager/<secret-id>` path), read once per process at
 * first use and kept: the connection string never sits in the function's configuration.
 */
let resolved: Promise<string> | undefined;

export function resolveDatabaseUrl(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const url = setting('DATABASE_URL', env);
  if (url) return Promise.resolve(url);
  const name = setting('HM_DATABASE_URL_PARAMETER', env);
  if (!name)
    return Promise.reject(
      new Error(
        'DATABASE_URL is not set: npm start sets it for the local stack; point it at PostgreSQL (or name an SSM parameter in HM_DATABASE_URL_PARAMETER) otherwise',
      ),
    );
  resolved ??= readParameter(name).catch((err: Error) => {
    resolved = undefined; // the next request tries again
    throw new Error(`could not read the database URL from SSM parameter ${name}: ${err.message}`);
  });
  return resolved;
}

async function readParameter(name: string): Promise<string> {
  // the Lambda runtime ships the SDK; loaded only where the parameter is used
  const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
  const out = await new SSMClient({ maxAttempts: 3 }).send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  const value = out.Parameter?.Value;
  if (!value) throw new Error('the parameter is empty');
  return value;
}
