import { getSqs, loadSqs } from './client.ts';
import { MAX_RECEIVES, RETENTION_SECONDS, nodeDeadLetterQueueName, nodeQueueName, queueConfig, type QueueConfig } from './config.ts';

/**
 * One FIFO queue per node plus its dead-letter queue. Nodes come and go at run time, so the
 * queues are created when a node registers (and, as a fallback, on the first dispatch to it), not declared
 * in serverless.yml. CreateQueue is idempotent for identical attributes, so calling this again is cheap.
 */
export async function ensureNodeQueue(nodeId: string, cfg: QueueConfig = queueConfig()): Promise<string> {
  const { CreateQueueCommand, GetQueueAttributesCommand } = await loadSqs();
  const sqs = await getSqs(cfg);
  const common = { FifoQueue: 'true', MessageRetentionPeriod: String(RETENTION_SECONDS) };
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: nodeDeadLetterQueueName(cfg.prefix, nodeId), Attributes: common }));
  const arn = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }));
  const main = await sqs.send(
    new CreateQueueCommand({
      QueueName: nodeQueueName(cfg.prefix, nodeId),
      Attributes: {
        ...common,
        // the task id is the deduplication id (dispatch.ts), never the body's hash
        ContentBasedDeduplication: 'false',
        // agents extend visibility while a task runs; this only bounds how long a crashed agent holds a message
        VisibilityTimeout: '60',
        ReceiveMessageWaitTimeSeconds: '20',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn.Attributes!.QueueArn, maxReceiveCount: MAX_RECEIVES }),
      },
    }),
  );
  const url = main.QueueUrl!;
  urls.set(cacheKey(cfg, nodeId), url);
  return url;
}

const urls = new Map<string, string>();
const cacheKey = (cfg: QueueConfig, nodeId: string) => `${cfg.endpoint ?? ''}|${cfg.prefix}|${nodeId}`;

/**
 * The node's queue URL, cached per process. Senders look it up (sqs:GetQueueUrl): only registration may create
 * queues in AWS (serverless.yml's roles). A queue that does not exist is created here as a fallback, which the
 * local stack relies on (a restarted emulator forgets its queues); deployed, that CreateQueue is refused and
 * the send fails until the node's agent registers again.
 */
export async function nodeQueueUrl(nodeId: string, cfg: QueueConfig = queueConfig()): Promise<string> {
  const cached = urls.get(cacheKey(cfg, nodeId));
  if (cached) return cached;
  const { GetQueueUrlCommand } = await loadSqs();
  const sqs = await getSqs(cfg);
  try {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: nodeQueueName(cfg.prefix, nodeId) }));
    urls.set(cacheKey(cfg, nodeId), QueueUrl!);
    return QueueUrl!;
  } catch (err) {
    if (!/NonExistentQueue|QueueDoesNotExist|does not exist/i.test(`${(err as Error).name} ${(err as Error).message}`)) throw err;
    return ensureNodeQueue(nodeId, cfg);
  }
}

/** Forgets a cached URL (after a send failed because the queue vanished, e.g. a restarted fauxqs). */
export function forgetNodeQueue(nodeId: string, cfg: QueueConfig = queueConfig()): void {
  urls.delete(cacheKey(cfg, nodeId));
}
