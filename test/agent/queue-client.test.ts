/**
 * The agent's queue client speaks SQS's JSON protocol itself (agent/sqs/sqs-call.ts), so what it sends is
 * checked against the SDK's own client: a SigV4 verifier written here from AWS's documented algorithm first
 * accepts a request the SDK signed (and refuses it tampered), then the agent's requests. The four calls then
 * run against the real local queue (fauxqs), and error answers, retries and digests against a capturing server.
 */
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { agentCredentials } from '#agent/sqs/aws-credentials';
import { NodeQueue } from '#agent/sqs/queue';
import { SqsError, SqsJsonClient } from '#agent/sqs/sqs-call';
import { stackQueue } from '../helpers/agent.ts';

interface Captured {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const KEYS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/** SigV4 as AWS documents it (canonical request, string to sign, derived key): true when the signature holds. */
function sigv4Holds(req: Captured, secret: string): boolean {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(String(req.headers.authorization));
  if (!auth) return false;
  // a payload hash sent along must be the body's, as AWS checks
  const payload = sha256(req.body);
  if (req.headers['x-amz-content-sha256'] !== undefined && req.headers['x-amz-content-sha256'] !== payload) return false;
  const [, credential, signedHeaders, signature] = auth;
  const [, date, region, service, terminator] = credential.split('/');
  const canonical = [
    req.method,
    req.url,
    '',
    ...signedHeaders.split(';').map((h) => `${h}:${String(req.headers[h]).trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    payload,
  ].join('\n');
  const amzDate = String(req.headers['x-amz-date']);
  const scope = [date, region, service, terminator].join('/');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), terminator);
  return createHmac('sha256', key).update(toSign).digest('hex') === signature;
}

/** A server that records each request and answers with the next of `answers` (the last one repeats). */
async function capturing(answers: { status: number; body: string; date?: Date }[]): Promise<{ server: Server; url: string; seen: Captured[] }> {
  const seen: Captured[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const a = answers[Math.min(seen.length, answers.length) - 1];
      res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.0', ...(a.date ? { date: a.date.toUTCString() } : {}) }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const closing: Server[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('what the agent sends is what SQS accepts', () => {
  test('the verifier accepts the SDK signed request and refuses it tampered, then accepts the agent request', async () => {
    const cap = await capturing([{ status: 200, body: '{}' }]);
    closing.push(cap.server);
    const sdk = new SQSClient({ region: 'eu-west-1', endpoint: cap.url, credentials: KEYS, maxAttempts: 1 });
    await sdk.send(new ReceiveMessageCommand({ QueueUrl: `${cap.url}/123/q.fifo`, WaitTimeSeconds: 0 }));
    sdk.destroy();
    const [bySdk] = cap.seen;
    expect(sigv4Holds(bySdk, KEYS.secretAccessKey)).toBe(true);
    expect(sigv4Holds({ ...bySdk, body: bySdk.body.replace('q.fifo', 'r.fifo') }, KEYS.secretAccessKey)).toBe(false);
    expect(sigv4Holds(bySdk, 'another secret')).toBe(false);

    const client = new SqsJsonClient({ endpoint: cap.url, region: 'eu-west-1', credentials: async () => KEYS });
    await client.call('ReceiveMessage', { QueueUrl: `${cap.url}/123/q.fifo`, WaitTimeSeconds: 0 }, { timeoutMs: 5000 });
    const byAgent = cap.seen[1];
    expect(sigv4Holds(byAgent, KEYS.secretAccessKey)).toBe(true);
    // the same operation, protocol and signing scope as the SDK's
    for (const h of ['x-amz-target', 'content-type']) expect(byAgent.headers[h]).toBe(bySdk.headers[h]);
    expect([byAgent.method, byAgent.url]).toEqual([bySdk.method, bySdk.url]);
    const scope = (r: Captured) => /Credential=[^/]+\/\d{8}\/([^,]+),/.exec(String(r.headers.authorization))?.[1];
    expect(scope(byAgent)).toBe('eu-west-1/sqs/aws4_request');
    expect(scope(byAgent)).toBe(scope(bySdk));
    expect(JSON.parse(byAgent.body)).toEqual(JSON.parse(bySdk.body));
  });

  test('a session token is signed in', async () => {
    const cap = await capturing([{ status: 200, body: '{}' }]);
    closing.push(cap.server);
    const client = new SqsJsonClient({ endpoint: cap.url, region: 'us-east-1', credentials: async () => ({ ...KEYS, sessionToken: 'tok' }) });
    await client.call('DeleteMessage', { QueueUrl: 'q', ReceiptHandle: 'r' }, { timeoutMs: 5000 });
    expect(cap.seen[0].headers['x-amz-security-token']).toBe('tok');
    expect(String(cap.seen[0].headers.authorization)).toMatch(/SignedHeaders=[^,]*x-amz-security-token/);
    expect(sigv4Holds(cap.seen[0], KEYS.secretAccessKey)).toBe(true);
  });
});

describe('error answers, retries and digests', () => {
  test('an SQS error is named by its code and not retried; a 5xx is retried', async () => {
    const refused = await capturing([
      { status: 400, body: '{"__type":"com.amazonaws.sqs#ReceiptHandleIsInvalid","message":"The input receipt handle is invalid."}' },
    ]);
    closing.push(refused.server);
    const client = new SqsJsonClient({ endpoint: refused.url, region: 'us-east-1', credentials: async () => KEYS });
    const err = await client.call('DeleteMessage', { QueueUrl: 'q', ReceiptHandle: 'r' }, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SqsError);
    expect(err).toMatchObject({ name: 'ReceiptHandleIsInvalid', status: 400, message: expect.stringContaining('receipt handle is invalid') });
    expect(refused.seen).toHaveLength(1);

    const flaky = await capturing([
      { status: 503, body: 'Service Unavailable' },
      { status: 200, body: '{}' },
    ]);
    closing.push(flaky.server);
    const again = new SqsJsonClient({ endpoint: flaky.url, region: 'us-east-1', credentials: async () => KEYS });
    await expect(again.call('DeleteMessage', { QueueUrl: 'q', ReceiptHandle: 'r' }, { timeoutMs: 5000 })).resolves.toEqual({});
    expect(flaky.seen).toHaveLength(2);
  });

  test("a host clock 10 minutes slow: the refused request is signed again with the server's time, and later ones too", async () => {
    const ahead = () => new Date(Date.now() + 600_000);
    const skewed = '{"__type":"com.amazon.coral.service#InvalidSignatureException","message":"Signature expired"}';
    const cap = await capturing([
      { status: 400, body: skewed, date: ahead() },
      { status: 200, body: '{}', date: ahead() },
    ]);
    closing.push(cap.server);
    const client = new SqsJsonClient({ endpoint: cap.url, region: 'us-east-1', credentials: async () => KEYS });
    await expect(client.call('DeleteMessage', { QueueUrl: 'q', ReceiptHandle: 'r' }, { timeoutMs: 5000 })).resolves.toEqual({});
    await client.call('DeleteMessage', { QueueUrl: 'q', ReceiptHandle: 'r' }, { timeoutMs: 5000 });
    const signedAt = cap.seen.map((r) =>
      Date.parse(String(r.headers['x-amz-date']).replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')),
    );
    // the first by the host's clock; the retry and the next call by the server's (its Date header has whole seconds)
    expect(Math.abs(signedAt[0] - Date.now())).toBeLessThan(300_000);
    for (const t of signedAt.slice(1)) expect(t - Date.now()).toBeGreaterThan(300_000);
    expect(cap.seen.every((r) => sigv4Holds(r, KEYS.secretAccessKey))).toBe(true);
    expect(cap.seen).toHaveLength(3);
  });

  test('an authorization refusal without a skewed clock is not tried again', async () => {
    const cap = await capturing([{ status: 400, body: '{"__type":"com.amazonaws.sqs#AccessDeniedException","message":"not authorized"}' }]);
    closing.push(cap.server);
    const client = new SqsJsonClient({ endpoint: cap.url, region: 'us-east-1', credentials: async () => KEYS });
    await expect(client.call('DeleteMessage', { QueueUrl: 'q', ReceiptHandle: 'r' }, { timeoutMs: 5000 })).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    expect(cap.seen).toHaveLength(1);
  });

  test('a received body that does not match its MD5OfBody fails the receive', async () => {
    const body = '{"taskId":"t-1"}';
    const message = (md5: string) =>
      JSON.stringify({ Messages: [{ MessageId: 'm', ReceiptHandle: 'rh', Body: body, MD5OfBody: md5, Attributes: { MessageGroupId: 'g' } }] });
    const good = await capturing([{ status: 200, body: message(createHash('md5').update(body).digest('hex')) }]);
    const bad = await capturing([{ status: 200, body: message('0'.repeat(32)) }]);
    closing.push(good.server, bad.server);
    const queue = (url: string) => new NodeQueue({ url: `${url}/1/q.fifo`, endpoint: url, visibilityS: 30, waitS: 0 });
    await expect(queue(good.url).receive(1)).resolves.toEqual([{ body, receipt: 'rh', group: 'g' }]);
    await expect(queue(bad.url).receive(1)).rejects.toThrow(/MD5OfBody/);
  });

  test('a long poll ends when its signal aborts', async () => {
    const silent = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    closing.push(silent);
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const stop = new AbortController();
    const poll = new NodeQueue({ url: `${url}/1/q.fifo`, endpoint: url, visibilityS: 30, waitS: 20 }).receive(1, stop.signal);
    setImmediate(() => stop.abort());
    await expect(poll).rejects.toThrow(/aborted/);
    silent.closeAllConnections();
  });
});

describe('against the local queue', () => {
  let sdk: SQSClient;
  let queueUrl: string;
  const endpoint = () => stackQueue().queueEndpoint;

  beforeAll(async () => {
    sdk = new SQSClient({ region: 'us-east-1', endpoint: endpoint(), credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const made = await sdk.send(
      new CreateQueueCommand({ QueueName: `queue-client-${process.pid}.fifo`, Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'true' } }),
    );
    queueUrl = made.QueueUrl!;
  });
  afterAll(async () => {
    await sdk.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => undefined);
    sdk.destroy();
  });

  test('receive, extend, release, receive again, delete', async () => {
    await sdk.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"taskId":"a"}', MessageGroupId: 'jail:101' }));
    const queue = new NodeQueue({ url: queueUrl, endpoint: endpoint(), visibilityS: 30, waitS: 1 });
    const [first] = await queue.receive(10);
    expect(first).toMatchObject({ body: '{"taskId":"a"}', group: 'jail:101' });
    expect(first.receipt).toEqual(expect.any(String));
    await queue.extend(first.receipt);
    // invisible while held
    expect(await queue.receive(10)).toEqual([]);
    await queue.release(first.receipt);
    const [again] = await queue.receive(10);
    expect(again).toMatchObject({ body: '{"taskId":"a"}', group: 'jail:101' });
    await queue.delete(again.receipt);
    expect(await queue.receive(10)).toEqual([]);
  });

  test('a queue that does not exist is named so, as the agent loop recognises it', async () => {
    const gone = new NodeQueue({ url: `${queueUrl.replace(/[^/]+$/, '')}no-such-queue-${process.pid}.fifo`, endpoint: endpoint(), visibilityS: 30, waitS: 0 });
    const err = (await gone.receive(1).catch((e: unknown) => e)) as Error;
    expect(`${err.name} ${err.message}`).toMatch(/NonExistentQueue|QueueDoesNotExist|does not exist/i);
  });
});

describe('credentials', () => {
  test('a local queue takes the environment keys or a placeholder; AWS takes the environment keys', async () => {
    expect(await agentCredentials(true, {})()).toEqual({ accessKeyId: 'local', secretAccessKey: 'local' });
    const env = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'SECRET', AWS_SESSION_TOKEN: 'TOKEN' };
    expect(await agentCredentials(true, env)()).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'SECRET', sessionToken: 'TOKEN' });
    expect(await agentCredentials(false, env)()).toEqual({ accessKeyId: 'AKID', secretAccessKey: 'SECRET', sessionToken: 'TOKEN' });
  });

  test('a named profile goes to the SDK default chain, which reads the shared credentials file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aws-creds-'));
    writeFileSync(join(dir, 'credentials'), '[agent]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = SECRETPROFILE\n');
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_PROFILE: 'agent',
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
      AWS_CONFIG_FILE: join(dir, 'config-none'),
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'SECRETENV',
    });
    try {
      expect(await agentCredentials(false)()).toMatchObject({ accessKeyId: 'AKIDPROFILE', secretAccessKey: 'SECRETPROFILE' });
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
