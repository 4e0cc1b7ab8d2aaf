import type { IncomingHttpHeaders } from 'node:http';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import aws4 from 'aws4';
import { withRetries } from '../runtime/backoff.ts';
import { httpText } from '../runtime/http-request.ts';
import { CLOCK_SKEW_ERROR_CODES, retryableAnswer } from './retry-codes.ts';

/** An SQS error answer: `name` is the error code (`QueueDoesNotExist`, `ReceiptHandleIsInvalid`, …). */
export class SqsError extends Error {
  /** refused for its signing time, and the clock offset changed since: worth sending again */
  clockSkewCorrected = false;

  constructor(
    readonly name: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface SqsEndpoint {
  /** where requests go: the queue URL's origin on AWS, or a local queue's endpoint */
  endpoint: string;
  region: string;
  credentials: AwsCredentialIdentityProvider;
}

/**
 * How often a call is tried, as the SDK's standard retry mode. An error answer is retried when the SDK would
 * (./retry-codes.ts); an error before any answer (a refused connection, a timeout) is always worth another try.
 */
const ATTEMPTS = 3;
const retryable = (err: unknown): boolean => !(err instanceof SqsError) || retryableAnswer(err);

/** `20261126T041500Z`, SigV4's X-Amz-Date */
const amzDate = (ms: number): string => new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, '');

/**
 * SQS's JSON protocol (what `@aws-sdk/client-sqs` speaks since 3.4xx): each call POSTs its input as JSON to the
 * endpoint's root, the operation named in `X-Amz-Target`, signed with SigV4 by `aws4`. The agent makes four calls
 * on its queue, and this is all they need; the SDK's client weighs more on every host (what was measured, and what
 * would make us use it: docs/decisions/agent-sqs-client.md).
 */
export class SqsJsonClient {
  private readonly url: URL;
  /**
   * The server's clock minus this host's, from each answer's Date header, and the time requests are signed with:
   * as the SDK does, so a host whose clock drifted past SigV4's 5 minutes still reaches its queue (a request
   * refused for its time is tried again with the corrected one).
   */
  private clockOffsetMs = 0;

  constructor(private readonly to: SqsEndpoint) {
    this.url = new URL(to.endpoint);
  }

  call<T>(op: string, input: object, o: { timeoutMs: number; signal?: AbortSignal }): Promise<T> {
    return withRetries(() => this.once<T>(op, JSON.stringify(input), o), {
      attempts: ATTEMPTS,
      baseMs: 100,
      maxMs: 20_000,
      signal: o.signal,
      retryable,
    });
  }

  private async once<T>(op: string, body: string, o: { timeoutMs: number; signal?: AbortSignal }): Promise<T> {
    const { url } = this;
    const request = {
      service: 'sqs',
      region: this.to.region,
      method: 'POST',
      host: url.host,
      path: '/',
      headers: {
        'x-amz-date': amzDate(Date.now() + this.clockOffsetMs),
        'content-type': 'application/x-amz-json-1.0',
        'content-length': String(Buffer.byteLength(body)),
        'x-amz-target': `AmazonSQS.${op}`,
      } as Record<string, string>,
      body,
    };
    aws4.sign(request, await this.to.credentials());
    const [sentAt, offsetBefore] = [Date.now(), this.clockOffsetMs];
    const res = await httpText(`${url.origin}/`, { method: 'POST', headers: request.headers, body, timeoutMs: o.timeoutMs, signal: o.signal });
    this.learnClock(res.headers, sentAt);
    if (res.status >= 200 && res.status < 300) return (res.text ? JSON.parse(res.text) : {}) as T;
    const err = errorOf(res.status, res.text);
    // as the SDK: only a skew past 4 minutes (SigV4 allows 5) counts as the reason
    if (CLOCK_SKEW_ERROR_CODES.includes(err.name) && this.clockOffsetMs !== offsetBefore && Math.abs(this.clockOffsetMs) >= 240_000)
      err.clockSkewCorrected = true;
    throw err;
  }

  /** @aws-sdk/core's getUpdatedSystemClockOffset: no Age header (a cache's answer), a round trip under 15 minutes. */
  private learnClock(headers: IncomingHttpHeaders, sentAt: number): void {
    const server = Date.parse(String(headers.date));
    if (headers.age !== undefined || Number.isNaN(server) || Date.now() - sentAt > 900_000) return;
    this.clockOffsetMs = server - Date.now();
  }
}

/** `{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"…"}` → SqsError('QueueDoesNotExist', …). */
function errorOf(status: number, text: string): SqsError {
  let answer: { __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    // not JSON: a proxy's or load balancer's page
  }
  const type = typeof answer.__type === 'string' ? answer.__type : '';
  const name = type.slice(type.lastIndexOf('#') + 1) || `Http${status}`;
  const message = typeof answer.message === 'string' ? answer.message : typeof answer.Message === 'string' ? answer.Message : text.slice(0, 200);
  return new SqsError(name, `${name}: ${message}`, status);
}
