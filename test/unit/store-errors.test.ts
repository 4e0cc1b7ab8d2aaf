// @tier stack
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createDb, closeDb } from '#store/db';
import { inTransaction } from '#store/tx';
import { DomainError } from '#shared/errors/domain-errors';
import { renderError } from '#http/error-status';
import { testDb, tokenFor } from '../helpers/api.ts';

/**
 * PostgreSQL is the consensus layer. An unreachable store is 503 cluster_consensus_unavailable;
 * a serialization conflict that survives the retries is 409 cluster_leadership_changed.
 */
describe('store failures map to the named responses', () => {
  test('a serialization failure is retried, then answered 409 cluster_leadership_changed; nothing is written', async () => {
    const db = testDb();
    const title = `conflict ${Date.now()}`;
    let attempts = 0;
    const err = await inTransaction(db, async (trx) => {
      attempts++;
      await trx.insertInto('cluster_notes').values({ title, content: '' }).execute();
      throw Object.assign(new Error('could not serialize access due to read/write dependencies among transactions'), { code: '40001' });
    }).catch((e: unknown) => e);
    expect(attempts).toBe(4);
    expect(err).toBeInstanceOf(DomainError);
    expect(renderError(err)).toMatchObject({ statusCode: 409, code: 'cluster_leadership_changed' });
    expect(await db.selectFrom('cluster_notes').select('id').where('title', '=', title).execute()).toEqual([]);
  });

  test('a conflict that clears on retry commits once', async () => {
    const db = testDb();
    const title = `retry ${Date.now()}`;
    let attempts = 0;
    await inTransaction(db, async (trx) => {
      attempts++;
      await trx.insertInto('cluster_notes').values({ title, content: '' }).execute();
      if (attempts < 3) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    expect(attempts).toBe(3);
    expect(await db.selectFrom('cluster_notes').select('id').where('title', '=', title).execute()).toHaveLength(1);
  });

  test('an unreachable store is 503 cluster_consensus_unavailable', async () => {
    const down = createDb('postgres://postgres:postgres@127.0.0.1:1/postgres', 1);
    const err = await inTransaction(down, async (trx) => trx.selectFrom('cluster_notes').select('id').execute()).catch((e: unknown) => e);
    await down.destroy();
    expect(err).toBeInstanceOf(DomainError);
    expect(renderError(err)).toMatchObject({ statusCode: 503, code: 'cluster_consensus_unavailable' });
  });

  test('through the pipeline: the store going away answers a 503 envelope, never a 500', async () => {
    const token = await tokenFor('viewer');
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:1/postgres';
    try {
      const { handler } = await import('#functions/notifications/count');
      const event = {
        version: '2.0',
        routeKey: 'GET /api/notifications/count',
        rawPath: '/api/notifications/count',
        rawQueryString: '',
        headers: { authorization: `Bearer ${token}` },
        isBase64Encoded: false,
        requestContext: { http: { method: 'GET', path: '/api/notifications/count' }, requestId: 'r1' },
      } as unknown as APIGatewayProxyEventV2;
      const res = (await handler(event, { awsRequestId: 'test-503' } as Context)) as { statusCode: number; body: string };
      expect(res.statusCode).toBe(503);
      expect(JSON.parse(res.body)).toEqual({
        status: 'error',
        message: 'cluster_consensus_unavailable',
        error: expect.stringContaining('unreachable'),
        data: null,
      });
    } finally {
      await closeDb();
      process.env.DATABASE_URL = saved;
    }
  });
});
