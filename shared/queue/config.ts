import { setting } from '#shared/config/read';

/**
 * Where the node queues live. In AWS: SQS in the function's region, names under HM_QUEUE_PREFIX (set by
 * serverless.yml per stage). Locally: fauxqs at HM_QUEUE_ENDPOINT (npm start and the tests set it), with
 * dummy credentials since fauxqs accepts any.
 */
export interface QueueConfig {
  /** custom endpoint (fauxqs); undefined in AWS */
  endpoint?: string;
  region: string;
  prefix: string;
}

export function queueConfig(env: NodeJS.ProcessEnv = process.env): QueueConfig {
  return {
    endpoint: setting('HM_QUEUE_ENDPOINT', env),
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    prefix: setting('HM_QUEUE_PREFIX', env),
  };
}

/** SQS allows 80 characters of [A-Za-z0-9_-] (+ `.fifo`); node ids are UUIDs, so names stay well inside. */
export const nodeQueueName = (prefix: string, nodeId: string) => `${prefix}-${nodeId}.fifo`;
export const nodeDeadLetterQueueName = (prefix: string, nodeId: string) => `${prefix}-${nodeId}-dlq.fifo`;

/** A message received this many times without being deleted moves to the node's DLQ. */
export const MAX_RECEIVES = 5;
/** 14 days, SQS's maximum: an agent that is away for a while still finds its work. */
export const RETENTION_SECONDS = 14 * 24 * 3600;
