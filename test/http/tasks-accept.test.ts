import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { testDb, uid } from '../helpers/api.ts';
import { insertNode, stackQueue, waitUntil } from '../helpers/agent.ts';
import { acceptTask } from '#http/accept';
import { nodeQueueUrl } from '#shared/queue/node-queue';
import type { HandlerContext } from '#http/endpoint';
import { sweepTasks } from '#domain/task-transitions';
import { renderError } from '#http/error-status';

/** The error response a rejection renders as (statusCode, code, detail), or a failure when it resolves. */
const rendered = (p: Promise<unknown>) =>
  p.then(() => {
    throw new Error('expected a rejection');
  }, renderError);

/** The context a 202 handler gets from the pipeline. */
function ctx(path: string, headers: Record<string, string> = {}, tokenId = 700000 + Math.floor(Math.random() * 100000)): HandlerContext {
  return {
    db: testDb(),
    principal: { tokenId, name: 'operator-x', role: 'operator', nodeId: null },
    event: { headers, rawPath: path, requestContext: { http: { method: 'POST' } } } as unknown as HandlerContext['event'],
    requestId: uid(),
  };
}

describe('acceptTask: the 202 helper', () => {
  let nodeId: string;
  let sqs: SQSClient;
  beforeAll(async () => {
    const q = stackQueue();
    nodeId = await insertNode();
    sqs = new SQSClient({ region: 'us-east-1', endpoint: q.queueEndpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  });
  afterAll(() => sqs.destroy());

  const plan = (resource: string) => async () => ({ kind: 'host.probe' as const, nodeId, resource, payload: { sysctls: ['hw.ncpu'] } });

  test('202 with Location; the message is on the node queue after commit', async () => {
    const resource = `pool:${uid()}`;
    const reply = await acceptTask(ctx('/api/things/1/go'), {
      message: 'thing_queued',
      plan: plan(resource),
      data: (t) => ({ taskId: t.id, outcome: 'queued' }),
    });
    expect(reply.statusCode).toBe(202);
    expect(reply.message).toBe('thing_queued');
    const taskId = (reply.data as { taskId: number }).taskId;
    expect(reply.headers).toEqual({ Location: `/api/tasks/${taskId}` });
    const row = await testDb().selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'queued', requested_by: 'operator-x', request_ref: 'POST /api/things/1/go', dispatch_count: 1 });
    expect(row.dispatched_at).not.toBeNull();
    const got = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: await nodeQueueUrl(nodeId),
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'],
      }),
    );
    const mine = (got.Messages ?? []).find((m) => JSON.parse(m.Body!).taskId === taskId)!;
    // a pointer only: kind and payload stay in the store, the agent gets them from start
    expect(JSON.parse(mine.Body!)).toEqual({ taskId });
    expect(mine.Attributes).toMatchObject({ MessageGroupId: resource, MessageDeduplicationId: String(taskId) });
  });

  test('a repeated Idempotency-Key answers with the first task without re-planning', async () => {
    const key = randomUUID();
    const c = ctx('/api/things/2/go', { 'idempotency-key': key });
    let planned = 0;
    const opts = {
      message: 'thing_queued',
      plan: async () => {
        planned++;
        return plan(`pool:${uid()}`)();
      },
      data: (t: { id: number }) => ({ id: t.id }),
    };
    const a = await acceptTask(c, opts);
    const b = await acceptTask(c, opts);
    expect(b.data).toEqual(a.data);
    expect(b.headers).toEqual(a.headers);
    expect(planned).toBe(1);
    const rows = await testDb().selectFrom('tasks').select('id').where('idempotency_key', '=', key).execute();
    expect(rows).toHaveLength(1);
  });

  test('a malformed Idempotency-Key is 400 naming the header', async () => {
    await expect(
      rendered(acceptTask(ctx('/api/x', { 'idempotency-key': 'has space' }), { message: 'm', plan: plan(`p:${uid()}`), data: () => null })),
    ).resolves.toMatchObject({
      statusCode: 400,
      code: 'invalid_idempotency_key',
      detail: expect.stringContaining('header.Idempotency-Key'),
    });
  });

  test('the sweeper sends a task whose send never happened, once', async () => {
    // a task committed without its message (the send failed): the sweeper owns it
    const task = await testDb()
      .insertInto('tasks')
      .values({
        kind: 'host.probe',
        node_id: nodeId,
        resource: `probe:${uid()}`,
        payload: JSON.stringify({ sysctls: [] }),
        requested_by: 'test',
        created_at: new Date(Date.now() - 60_000),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const swept = await waitUntil('the task to be sent', async () => {
      const r = await sweepTasks(testDb(), { nodeId, unsentAfterS: 1 });
      const row = await testDb().selectFrom('tasks').select('dispatch_count').where('id', '=', task.id).executeTakeFirstOrThrow();
      return row.dispatch_count === 1 ? r : null;
    });
    void swept;
    const again = await sweepTasks(testDb(), { nodeId, unsentAfterS: 1 });
    expect(again.sent).not.toContain(task.id);
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: await nodeQueueUrl(nodeId), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect((got.Messages ?? []).map((m) => JSON.parse(m.Body!).taskId)).toContain(task.id);
  });
});
