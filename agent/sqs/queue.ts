import { createHash } from 'node:crypto';
import { agentCredentials } from './aws-credentials.ts';
import { SqsJsonClient } from './sqs-call.ts';

export interface ReceivedMessage {
  body: string;
  receipt: string;
  /** the resource key (MessageGroupId) */
  group: string | undefined;
}

interface QueueOptions {
  url: string;
  /** custom endpoint (fauxqs); otherwise the region's SQS */
  endpoint?: string;
  region?: string;
  /** seconds a received message stays invisible; extended while its task runs */
  visibilityS: number;
  /** long-poll wait, ≤ 20 s */
  waitS: number;
}

/** The region of an AWS queue URL (`https://sqs.eu-west-1.amazonaws.com/…`). */
const regionOfQueueUrl = (url: string): string | undefined => /^https?:\/\/sqs[.-]([a-z0-9-]+)\.amazonaws\.com/.exec(url)?.[1];

/** A message as ReceiveMessage answers it (the fields the agent reads). */
interface SqsMessage {
  Body?: string;
  MD5OfBody?: string;
  ReceiptHandle?: string;
  Attributes?: { MessageGroupId?: string };
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** How long a call other than the long poll may take, and what the long poll may take beyond its wait. */
const CALL_TIMEOUT_MS = 15_000;
const POLL_GRACE_MS = 10_000;

/** The agent's side of its node's FIFO queue. */
export class NodeQueue {
  private readonly sqs: SqsJsonClient;

  constructor(readonly o: QueueOptions) {
    this.sqs = new SqsJsonClient({
      // the queue URL's own host, as the SDK does by default (useQueueUrlAsEndpoint), unless a local queue is named
      endpoint: o.endpoint ?? new URL(o.url).origin,
      region: o.region ?? regionOfQueueUrl(o.url) ?? process.env.AWS_REGION ?? 'us-east-1',
      credentials: agentCredentials(o.endpoint !== undefined),
    });
  }

  async receive(max: number, signal?: AbortSignal): Promise<ReceivedMessage[]> {
    const out = await this.sqs.call<{ Messages?: SqsMessage[] }>(
      'ReceiveMessage',
      {
        QueueUrl: this.o.url,
        MaxNumberOfMessages: Math.max(1, Math.min(10, max)),
        WaitTimeSeconds: this.o.waitS,
        VisibilityTimeout: this.o.visibilityS,
        MessageSystemAttributeNames: ['MessageGroupId'],
      },
      // a connection that died silently ends the poll rather than the agent's consuming
      { timeoutMs: this.o.waitS * 1000 + POLL_GRACE_MS, signal },
    );
    const messages = out.Messages ?? [];
    // as the SDK's SQS middleware does: a body that does not match its digest fails the receive (each message comes back)
    if (messages.some((m) => m.MD5OfBody !== undefined && md5(m.Body ?? '') !== m.MD5OfBody))
      throw new Error('a received message does not match its MD5OfBody');
    return messages.map((m) => ({ body: m.Body ?? '', receipt: m.ReceiptHandle!, group: m.Attributes?.MessageGroupId }));
  }

  async delete(receipt: string): Promise<void> {
    await this.sqs.call('DeleteMessage', { QueueUrl: this.o.url, ReceiptHandle: receipt }, { timeoutMs: CALL_TIMEOUT_MS });
  }

  /** Keeps a message invisible for another `visibilityS` (while its task runs). */
  async extend(receipt: string): Promise<void> {
    await this.visibility(receipt, this.o.visibilityS);
  }

  /** Hands a message back at once (a task not started before shutdown). */
  async release(receipt: string): Promise<void> {
    await this.visibility(receipt, 0);
  }

  private async visibility(receipt: string, seconds: number): Promise<void> {
    await this.sqs.call(
      'ChangeMessageVisibility',
      { QueueUrl: this.o.url, ReceiptHandle: receipt, VisibilityTimeout: seconds },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
  }
}
