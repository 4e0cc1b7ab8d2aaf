// @tier stack
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { closeDb } from '#store/db';
import { tokenFor } from '../helpers/api.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

/**
 * Every statement is bounded (HM_DB_QUERY_TIMEOUT_MS): a store that stops answering turns a request into
 * 503 cluster_consensus_unavailable within the bound, instead of holding it for the whole Lambda timeout.
 */
describe('a hung store answers 503 within the query timeout', () => {
  const BOUND_MS = 1500;
  let proxy: TcpProxy;
  const saved = { url: process.env.DATABASE_URL, timeout: process.env.HM_DB_QUERY_TIMEOUT_MS };

  beforeAll(async () => {
    const store = new URL(process.env.HM_TEST_DATABASE_URL!);
    proxy = await startTcpProxy(store.hostname, Number(store.port));
    store.hostname = '127.0.0.1';
    store.port = String(proxy.port);
    process.env.DATABASE_URL = store.toString();
    process.env.HM_DB_QUERY_TIMEOUT_MS = String(BOUND_MS);
  });
  afterAll(async () => {
    await closeDb();
    await proxy.close();
    process.env.DATABASE_URL = saved.url;
    if (saved.timeout === undefined) delete process.env.HM_DB_QUERY_TIMEOUT_MS;
    else process.env.HM_DB_QUERY_TIMEOUT_MS = saved.timeout;
  });

  const invoke = async (token: string, id: string) => {
    const { handler } = await import('#functions/notifications/count');
    const event = {
      version: '2.0',
      routeKey: 'GET /api/notifications/count',
      rawPath: '/api/notifications/count',
      rawQueryString: '',
      headers: { authorization: `Bearer ${token}` },
      isBase64Encoded: false,
      requestContext: { http: { method: 'GET', path: '/api/notifications/count' }, requestId: id },
    } as unknown as APIGatewayProxyEventV2;
    const started = Date.now();
    const res = (await handler(event, { awsRequestId: id } as Context)) as { statusCode: number; body: string };
    return { ...res, ms: Date.now() - started };
  };

  test('warm container, store frozen mid-life: 503 envelope within the bound; the pool recovers after', async () => {
    const token = await tokenFor('viewer');
    expect((await invoke(token, 'warm')).statusCode).toBe(200); // the pool now holds a live connection
    proxy.freeze();
    // the store stays frozen until the answer is in: a 503 here was answered by the bound, not by a thawed store
    const hung = await invoke(token, 'hung');
    proxy.thaw();
    expect(hung.statusCode).toBe(503);
    expect(JSON.parse(hung.body)).toEqual({
      status: 'error',
      message: 'cluster_consensus_unavailable',
      error: expect.stringContaining('did not answer in time'),
      data: null,
    });
    expect(hung.ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
    // the abandoned connection was discarded: the next request gets a fresh one and succeeds
    expect((await invoke(token, 'after')).statusCode).toBe(200);
  });

  const post = async (token: string, id: string) => {
    const { handler } = await import('#functions/cluster/notes-create');
    const event = {
      version: '2.0',
      routeKey: 'POST /api/cluster/notes',
      rawPath: '/api/cluster/notes',
      rawQueryString: '',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      isBase64Encoded: false,
      body: JSON.stringify({ title: `hung ${id}`, content: 'x' }),
      requestContext: { http: { method: 'POST', path: '/api/cluster/notes', sourceIp: '192.0.2.1' }, requestId: id },
    } as unknown as APIGatewayProxyEventV2;
    const started = Date.now();
    const res = (await handler(event, { awsRequestId: id } as Context)) as { statusCode: number; body: string };
    return { ...res, ms: Date.now() - started };
  };

  test('a mutation during a hang: 503 within one query timeout — its audit write does not wait for the store a second time', async () => {
    const token = await tokenFor('operator');
    expect((await post(token, 'warm-post')).statusCode).toBe(201);
    const logged: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: unknown) => void logged.push(String(line)));
    proxy.freeze();
    let hung;
    try {
      hung = await post(token, 'hung-post');
    } finally {
      proxy.thaw();
      log.mockRestore();
    }
    expect(hung.statusCode).toBe(503);
    expect(JSON.parse(hung.body).message).toBe('cluster_consensus_unavailable');
    // one statement waited its bound (the token lookup); the line below shows the audit write was not awaited
    // after it (before the fix it waited a second bound and logged no such line)
    expect(hung.ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
    const line = logged.map((l) => JSON.parse(l)).find((l) => l.msg === 'audit write not awaited: the store is unavailable');
    expect(line).toMatchObject({ requestId: 'hung-post', method: 'POST', route: '/api/cluster/notes', status: 503 });
    expect((await post(token, 'after-post')).statusCode).toBe(201);
  });
});
