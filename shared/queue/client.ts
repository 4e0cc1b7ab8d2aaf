import type { SQSClient } from '@aws-sdk/client-sqs';
import { queueConfig, type QueueConfig } from './config.ts';

/**
 * The SQS SDK, loaded on first use: function bundles leave `@aws-sdk/*` to the Lambda runtime, and a static
 * import costs ≈ 100 ms of cold start on every endpoint that never enqueues (see scripts/build.ts).
 */
type Sqs = typeof import('@aws-sdk/client-sqs');
let sdk: Promise<Sqs> | undefined;
export const loadSqs = (): Promise<Sqs> => (sdk ??= import('@aws-sdk/client-sqs'));

async function createSqsClient(cfg: QueueConfig = queueConfig()): Promise<SQSClient> {
  const { SQSClient } = await loadSqs();
  return new SQSClient({
    region: cfg.region,
    ...(cfg.endpoint
      ? {
          endpoint: cfg.endpoint,
          // fauxqs accepts any credentials; real ones from the environment win when present
          credentials: {
            accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local',
            secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local',
          },
        }
      : {}),
    maxAttempts: 3,
  });
}

let shared: { key: string; client: Promise<SQSClient> } | undefined;
/** The process-wide client for the current configuration (warm Lambdas reuse it). */
export function getSqs(cfg: QueueConfig = queueConfig()): Promise<SQSClient> {
  const key = `${cfg.endpoint ?? ''}|${cfg.region}`;
  if (shared?.key !== key) shared = { key, client: createSqsClient(cfg) };
  return shared.client;
}
