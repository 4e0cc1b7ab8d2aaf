import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, tokenFor, testDb, uid } from '../helpers/api.ts';
import { insertNode, queueTask, stackQueue } from '../helpers/agent.ts';
import { createTask } from '#shared/jobs/tasks';
import { inTransaction } from '#store/tx';
import { createDb } from '#store/db';
import { renderError } from '#http/error-status';

/** The error response a rejection renders as (statusCode, code, detail), or a failure when it resolves. */
const rendered = (p: Promise<unknown>) =>
  p.then(() => {
    throw new Error('expected a rejection');
  }, renderError);

const probe = (nodeId: string, resource: string, extra: { idempotencyKey?: string; requestedBy?: { tokenId: number; name: string } } = {}) => ({
  kind: 'host.probe' as const,
  nodeId,
  resource,
  payload: { sysctls: ['kern.hostname'] },
  requestedBy: extra.requestedBy ?? 'test',
  ...extra,
});

/** A task of a kind that holds its resource alone (shared/agent-api/task-kinds.ts: `exclusive`). */
const replacement = (nodeId: string, resource: string) => ({
  kind: 'pool.replace-device' as const,
  nodeId,
  resource,
  payload: { pool: 'tank', guid: '1', old: 'ada1', new: 'ada2' },
  requestedBy: 'test',
});

describe('GET /api/tasks/{id}', () => {
  let nodeId: string;
  beforeAll(async () => {
    stackQueue();
    nodeId = await insertNode();
  });

  test('returns the task record', async () => {
    const t = await queueTask({ ...probe(nodeId, `probe:${uid()}`), dispatch: false });
    const res = await call('GET', `/tasks/${t.id}`, { token: await tokenFor('viewer') });
    expectEnvelope(res, 200, 'task_found');
    expect(res.body.data).toMatchObject({
      id: t.id,
      kind: 'host.probe',
      nodeId,
      resource: t.resource,
      status: 'queued',
      progress: 0,
      attempts: 0,
      requestedBy: 'test',
      exclusive: false,
      result: null,
    });
    expect(Date.parse(res.body.data.createdAt)).not.toBeNaN();
    expect(res.body.data.startedAt).toBeNull();
    // the payload stays internal (it can carry secrets)
    expect(res.body.data).not.toHaveProperty('payload');
  });

  test('404 names the task', async () => {
    const res = await call('GET', '/tasks/2147483000');
    expectEnvelope(res, 404, 'task_not_found');
    expect(res.body.error).toBe('task 2147483000 does not exist');
  });

  test('400 for an id that is not a positive integer', async () => {
    for (const bad of ['0', 'abc', '2147483648']) {
      const res = await call('GET', `/tasks/${bad}`);
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^path\.id: /);
    }
  });

  test('401 without a token; 403 for an agent token', async () => {
    expectEnvelope(await call('GET', '/tasks/1', { token: null }), 401);
    expectEnvelope(await call('GET', '/tasks/1', { token: await tokenFor('agent', nodeId) }), 403, 'forbidden');
    expectEnvelope(await call('GET', '/tasks', { token: await tokenFor('agent', nodeId) }), 403, 'forbidden');
  });
});

describe('GET /api/tasks', () => {
  let nodeA: string;
  let nodeB: string;
  const resource = `probe:${uid()}`;
  const ids: number[] = [];
  beforeAll(async () => {
    stackQueue();
    nodeA = await insertNode();
    nodeB = await insertNode();
    for (let i = 0; i < 5; i++) ids.push((await queueTask({ ...probe(i < 3 ? nodeA : nodeB, resource), dispatch: false })).id);
    await testDb().updateTable('tasks').set({ status: 'failed', error: 'x' }).where('id', '=', ids[1]).execute();
  });

  test('filters by resource, newest first, with paging', async () => {
    const res = await call('GET', `/tasks?resource=${encodeURIComponent(resource)}&size=2`);
    expectEnvelope(res, 200, 'tasks_listed');
    expect(res.body.data.data.map((t: { id: number }) => t.id)).toEqual([ids[4], ids[3]]);
    expect(res.body.data.last_page).toBe(3);
    expect(res.body.data.total).toBe(5);
    const p3 = await call('GET', `/tasks?resource=${encodeURIComponent(resource)}&size=2&page=3`);
    expect(p3.body.data.data.map((t: { id: number }) => t.id)).toEqual([ids[0]]);
    const beyond = await call('GET', `/tasks?resource=${encodeURIComponent(resource)}&size=2&page=9`);
    expect(beyond.body.data.data).toEqual([]);
    expect(beyond.body.data.last_page).toBe(3);
  });

  test('filters by status and node', async () => {
    const failed = await call('GET', `/tasks?resource=${encodeURIComponent(resource)}&status=failed`);
    expect(failed.body.data.data.map((t: { id: number }) => t.id)).toEqual([ids[1]]);
    const onB = await call('GET', `/tasks?nodeId=${nodeB}`);
    expect(onB.body.data.data.map((t: { id: number }) => t.id)).toEqual([ids[4], ids[3]]);
    const queuedOnA = await call('GET', `/tasks?nodeId=${nodeA}&status=queued&kind=host.probe`);
    expect(queuedOnA.body.data.data.map((t: { id: number }) => t.id)).toEqual([ids[2], ids[0]]);
  });

  test('an empty result still has last_page 1', async () => {
    const res = await call('GET', `/tasks?resource=nothing-${uid()}`);
    expectEnvelope(res, 200);
    expect(res.body.data).toEqual({ data: [], last_page: 1, total: 0 });
  });

  test('400 lists every bad query field', async () => {
    const res = await call('GET', '/tasks?status=done&size=101&page=0&color=red');
    expectEnvelope(res, 400, 'validation_failed');
    for (const f of ['query.status', 'query.size', 'query.page', 'query.color']) expect(res.body.error).toContain(f);
  });
});

describe('createTask: exclusive resources and idempotency keys', () => {
  let nodeId: string;
  beforeAll(async () => {
    stackQueue();
    nodeId = await insertNode();
  });

  test('a second active exclusive task on a resource is 409 resource_busy naming the first', async () => {
    const resource = `pool:${uid()}`;
    const first = await queueTask({ ...replacement(nodeId, resource), dispatch: false });
    expect(first.exclusive).toBe(true);
    await expect(rendered(inTransaction(testDb(), (trx) => createTask(trx, replacement(nodeId, resource))))).resolves.toMatchObject({
      statusCode: 409,
      code: 'resource_busy',
      detail: `${resource} is busy: task ${first.id} (pool.replace-device) is queued`,
    });
    // non-exclusive work on the same resource is not blocked
    await expect(inTransaction(testDb(), (trx) => createTask(trx, probe(nodeId, resource)))).resolves.toMatchObject({ exclusive: false });
    // once the first ends, the resource is free again
    await testDb().updateTable('tasks').set({ status: 'success' }).where('id', '=', first.id).execute();
    await expect(inTransaction(testDb(), (trx) => createTask(trx, replacement(nodeId, resource)))).resolves.toMatchObject({
      exclusive: true,
      status: 'queued',
    });
  });

  test('under a race of concurrent requests exactly one exclusive task is created', async () => {
    const resource = `pool:${uid()}`;
    // separate pools: real concurrent transactions on PostgreSQL (PGlite serialises them)
    const dbs = Array.from({ length: 6 }, () => createDb(process.env.HM_TEST_DATABASE_URL!, 1));
    try {
      const results = await Promise.allSettled(dbs.map((db) => inTransaction(db, (trx) => createTask(trx, replacement(nodeId, resource)))));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      for (const l of lost)
        expect(renderError(l.reason)).toMatchObject({ statusCode: 409, code: expect.stringMatching(/^(resource_busy|cluster_leadership_changed)$/) });
      const rows = await testDb().selectFrom('tasks').select('id').where('resource', '=', resource).execute();
      expect(rows).toHaveLength(1);
    } finally {
      await Promise.all(dbs.map((d) => d.destroy()));
    }
  });

  test('a repeated Idempotency-Key of the same requester returns the first task', async () => {
    const me = { tokenId: 900000 + Math.floor(Math.random() * 1000), name: 'someone' };
    const key = randomUUID();
    const a = await inTransaction(testDb(), (trx) =>
      createTask(trx, { ...probe(nodeId, `probe:${uid()}`, { idempotencyKey: key, requestedBy: me }), requestRef: 'POST /api/x' }),
    );
    const b = await inTransaction(testDb(), (trx) =>
      createTask(trx, { ...probe(nodeId, `probe:${uid()}`, { idempotencyKey: key, requestedBy: me }), requestRef: 'POST /api/x' }),
    );
    expect(b.id).toBe(a.id);
    // another requester's same key is its own
    const other = await inTransaction(testDb(), (trx) =>
      createTask(trx, {
        ...probe(nodeId, `probe:${uid()}`, { idempotencyKey: key, requestedBy: { ...me, tokenId: me.tokenId + 1 } }),
        requestRef: 'POST /api/x',
      }),
    );
    expect(other.id).not.toBe(a.id);
    // the same key for a different request is refused
    await expect(
      rendered(
        inTransaction(testDb(), (trx) =>
          createTask(trx, { ...probe(nodeId, `probe:${uid()}`, { idempotencyKey: key, requestedBy: me }), requestRef: 'POST /api/y' }),
        ),
      ),
    ).resolves.toMatchObject({
      statusCode: 409,
      code: 'idempotency_key_reused',
    });
  });
});
