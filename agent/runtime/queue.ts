import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';

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

/** The agent's side of its node's FIFO queue. */
export class NodeQueue {
  private readonly sqs: SQSClient;

  constructor(readonly o: QueueOptions) {
    const region = o.region ?? regionOfQueueUrl(o.url) ?? process.env.AWS_REGION ?? 'us-east-1';
    this.sqs = new SQSClient({
      region,
      ...(o.endpoint
        ? {
            endpoint: o.endpoint,
            credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local' },
          }
        : {}),
    });
  }

  async receive(max: number, signal?: AbortSignal): Promise<ReceivedMessage[]> {
    const out = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.o.url,
        MaxNumberOfMessages: Math.max(1, Math.min(10, max)),
        WaitTimeSeconds: this.o.waitS,
        VisibilityTimeout: this.o.visibilityS,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
      { abortSignal: signal },
    );
    return (out.Messages ?? []).map((m: Message) => ({
      body: m.Body ?? '',
      receipt: m.ReceiptHandle!,
      group: m.Attributes?.MessageGroupId,
    }));
  }

  async delete(receipt: string): Promise<void> {
    await this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.o.url, ReceiptHandle: receipt }));
  }

  /** Keeps a message invisible for another `visibilityS` (while its task runs). */
  async extend(receipt: string): Promise<void> {
    await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.o.url, ReceiptHandle: receipt, VisibilityTimeout: this.o.visibilityS }));
  }

  /** Hands a message back at once (a task not started before shutdown). */
  async release(receipt: string): Promise<void> {
    await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.o.url, ReceiptHandle: receipt, VisibilityTimeout: 0 }));
  }

  close(): void {
    this.sqs.destroy();
  }
}
