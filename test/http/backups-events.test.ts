import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';

/**
 * E12 GET /api/cluster/backups/events/remote over real HTTP. Every event here carries a unique token in its
 * dataset, so searches and node filters only ever see this file's data, whatever else the store holds.
 */
const T = uid();
const nodeA = randomUUID();
const nodeB = randomUUID();
const STATUSES = ['queued', 'running', 'success', 'failed', 'interrupted'] as const;
let jobA: number;
let jobB: number;
type Row = {
  id: number;
  job_id: number;
  node_id: string;
  mode: string;
  source_dataset: string;
  target_endpoint: string;
  status: string;
  output: string;
  error: string;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
};
let rows: Row[];
let viewer: string;

const path = (q: Record<string, string | number>) =>
  `/cluster/backups/events/remote?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`;
const ids = (res: { body: { data: { data: Array<{ id: number }> } } }) => res.body.data.data.map((e) => e.id);

/** The order E12 promises: by the column, NULLs as PostgreSQL orders them (last asc, first desc), ties by id. */
function expectedOrder(list: Row[], col: keyof Row, dir: 'asc' | 'desc'): number[] {
  const sign = dir === 'asc' ? 1 : -1;
  const key = (v: unknown) => (v instanceof Date ? v.getTime() : v);
  return [...list]
    .sort((a, b) => {
      const x = key(a[col]);
      const y = key(b[col]);
      if (x === y) return sign * (a.id - b.id);
      if (x === null) return sign; // NULL is the largest value
      if (y === null) return -sign;
      return sign * (x! < y! ? -1 : 1);
    })
    .map((r) => r.id);
}

beforeAll(async () => {
  viewer = await tokenFor('viewer');
  const db = testDb();
  await db
    .insertInto('nodes')
    .values([
      { id: nodeA, name: `a-${T}`, ip: '10.9.0.1', status: 'member', inventory: {} },
      { id: nodeB, name: `b-${T}`, ip: '10.9.0.2', status: 'pending', inventory: {} },
    ])
    .execute();
  const jobs = await db
    .insertInto('backup_jobs')
    .values([
      {
        name: `ja-${T}`,
        node_id: nodeA,
        mode: 'incremental',
        source_dataset: `zroot/jails/web-${T}`,
        target_endpoint: `backup@10.0.0.5:tank/b-${T}`,
        schedule: '0 * * * *',
        enabled: true,
      },
      {
        name: `jb-${T}`,
        node_id: nodeB,
        mode: 'full',
        source_dataset: `zroot/vms/db-${T}`,
        target_endpoint: `root@10.0.0.6:vault/Off-${T}`,
        schedule: '',
        enabled: true,
      },
    ])
    .returning('id')
    .execute();
  [jobA, jobB] = jobs.map((j) => j.id);
  const base = Date.UTC(2025, 0, 1);
  const values = Array.from({ length: 23 }, (_, i) => {
    const onA = i % 3 !== 0;
    const status = STATUSES[i % 5];
    const created = new Date(base + i * 3_600_000);
    // a few equal startedAt values, to check the id tie-break
    const started = status === 'queued' ? null : new Date(base + Math.floor(i / 2) * 3_600_000 + 60_000);
    return {
      job_id: onA ? jobA : jobB,
      node_id: onA ? nodeA : nodeB,
      mode: onA ? 'incremental' : 'full',
      source_dataset: onA ? `zroot/jails/web-${T}` : `zroot/vms/db-${T}`,
      target_endpoint: onA ? `backup@10.0.0.5:tank/b-${T}` : `root@10.0.0.6:vault/Off-${T}`,
      status,
      output: `sent ${i} MiB`,
      error: status === 'failed' ? (i % 2 ? `cannot receive: Out Of Space ${T}` : `100%_done\\${T}`) : '',
      created_at: created,
      started_at: started,
      completed_at: status === 'success' || status === 'failed' ? new Date(created.getTime() + (23 - i) * 60_000) : null,
      updated_at: new Date(created.getTime() + 1000),
    };
  });
  await db.insertInto('backup_events').values(values).execute();
  rows = (await db.selectFrom('backup_events').selectAll().where('node_id', 'in', [nodeA, nodeB]).execute()) as Row[];
});

describe('E12 GET /cluster/backups/events/remote', () => {
  test('nodeId: only that node’s events, camelCase records, default startedAt desc with id tie-break', async () => {
    const res = await call('GET', path({ nodeId: nodeA, size: 100 }), { token: viewer });
    expectEnvelope(res, 200, 'backup_events_listed');
    const mine = rows.filter((r) => r.node_id === nodeA);
    expect(ids(res)).toEqual(expectedOrder(mine, 'started_at', 'desc'));
    expect(res.body.data.last_page).toBe(1);
    const ev = res.body.data.data.find((e: { status: string }) => e.status === 'success');
    const row = rows.find((r) => r.id === ev.id)!;
    expect(Object.keys(ev).sort()).toEqual([
      'completedAt',
      'createdAt',
      'error',
      'id',
      'jobId',
      'mode',
      'output',
      'sourceDataset',
      'startedAt',
      'status',
      'targetEndpoint',
      'updatedAt',
    ]);
    expect(ev).toEqual({
      id: row.id,
      jobId: jobA,
      mode: 'incremental',
      sourceDataset: `zroot/jails/web-${T}`,
      targetEndpoint: `backup@10.0.0.5:tank/b-${T}`,
      status: 'success',
      output: row.output,
      error: '',
      createdAt: row.created_at.toISOString(),
      startedAt: row.started_at!.toISOString(),
      completedAt: row.completed_at!.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
    const queued = res.body.data.data.find((e: { status: string }) => e.status === 'queued');
    expect(queued.startedAt).toBeNull();
    expect(queued.completedAt).toBeNull();
  });

  test('without nodeId: events of every node', async () => {
    const res = await call('GET', path({ search: T, size: 100 }), { token: viewer });
    expectEnvelope(res, 200);
    expect(new Set(ids(res))).toEqual(new Set(rows.map((r) => r.id)));
  });

  test('paging: size, page, last_page; a page past the end is empty', async () => {
    const all = expectedOrder(
      rows.filter((r) => r.node_id === nodeA),
      'started_at',
      'desc',
    );
    const p2 = await call('GET', path({ nodeId: nodeA, size: 4, page: 2 }), { token: viewer });
    expectEnvelope(p2, 200);
    expect(ids(p2)).toEqual(all.slice(4, 8));
    expect(p2.body.data.last_page).toBe(Math.ceil(all.length / 4));
    const last = await call('GET', path({ nodeId: nodeA, size: 4, page: Math.ceil(all.length / 4) }), { token: viewer });
    expect(ids(last)).toEqual(all.slice(4 * (Math.ceil(all.length / 4) - 1)));
    const past = await call('GET', path({ nodeId: nodeA, size: 4, page: 99 }), { token: viewer });
    expectEnvelope(past, 200);
    expect(past.body.data).toEqual({ data: [], last_page: Math.ceil(all.length / 4) });
  });

  test('default size is 25 and last_page is 1 when nothing matches', async () => {
    const res = await call('GET', path({ search: T }), { token: viewer });
    expect(res.body.data.data).toHaveLength(rows.length); // 23 < 25
    const none = await call('GET', path({ search: `nothing-${T}` }), { token: viewer });
    expectEnvelope(none, 200);
    expect(none.body.data).toEqual({ data: [], last_page: 1 });
  });

  test('jobId filter', async () => {
    const res = await call('GET', path({ jobId: jobB, size: 100 }), { token: viewer });
    expectEnvelope(res, 200);
    expect(new Set(ids(res))).toEqual(new Set(rows.filter((r) => r.job_id === jobB).map((r) => r.id)));
    const both = await call('GET', path({ jobId: jobB, nodeId: nodeA }), { token: viewer });
    expect(both.body.data).toEqual({ data: [], last_page: 1 });
  });

  test('search is a case-insensitive substring of sourceDataset, targetEndpoint, status or error', async () => {
    const expectSearch = async (search: string, match: (r: Row) => boolean) => {
      const res = await call('GET', path({ search, size: 100, 'sort[0][field]': 'id', 'sort[0][dir]': 'asc' }), { token: viewer });
      expectEnvelope(res, 200);
      const want = rows
        .filter(match)
        .map((r) => r.id)
        .sort((a, b) => a - b);
      expect(want.length).toBeGreaterThan(0);
      expect(ids(res)).toEqual(want);
    };
    await expectSearch(`VMS/DB-${T.toUpperCase()}`, (r) => r.source_dataset.startsWith('zroot/vms/'));
    await expectSearch(`vault/off-${T}`, (r) => r.target_endpoint.includes('vault'));
    await expectSearch(`out of space ${T}`, (r) => r.error.startsWith('cannot receive'));
    // status, limited to this file's nodes
    const res = await call('GET', path({ search: 'InterRupted', nodeId: nodeB, size: 100 }), { token: viewer });
    expect(new Set(ids(res))).toEqual(new Set(rows.filter((r) => r.node_id === nodeB && r.status === 'interrupted').map((r) => r.id)));
    expect(ids(res).length).toBeGreaterThan(0);
  });

  test('search treats %, _ and \\ literally and never matches across two fields', async () => {
    const res = await call('GET', path({ search: `100%_done\\${T}`, size: 100 }), { token: viewer });
    expect(new Set(ids(res))).toEqual(new Set(rows.filter((r) => r.error.startsWith('100%_done')).map((r) => r.id)));
    expect(ids(res).length).toBeGreaterThan(0);
    const wild = await call('GET', path({ search: `1_0%done\\${T}` }), { token: viewer });
    expect((await call('GET', path({ search: `100%_done\\\\${T}` }), { token: viewer })).body.data.data).toEqual([]);
    expect(wild.body.data.data).toEqual([]);
    // the end of the dataset followed by the start of the endpoint
    const across = await call('GET', path({ search: `web-${T}backup@` }), { token: viewer });
    expect(across.body.data.data).toEqual([]);
  });

  test('search follows later changes of an event (status and error)', async () => {
    const target = rows.find((r) => r.status === 'running' && r.node_id === nodeA)!;
    const marker = `late-failure-${T}`;
    await testDb().updateTable('backup_events').set({ status: 'failed', error: marker }).where('id', '=', target.id).execute();
    const res = await call('GET', path({ search: marker.toUpperCase() }), { token: viewer });
    expect(ids(res)).toEqual([target.id]);
    await testDb().updateTable('backup_events').set({ status: 'running', error: '' }).where('id', '=', target.id).execute();
    expect((await call('GET', path({ search: marker }), { token: viewer })).body.data.data).toEqual([]);
  });

  test('last_page stays exact as events are added, changed and deleted', async () => {
    const db = testDb();
    const lastPageOf = async () => (await call('GET', path({ nodeId: nodeB, size: 1 }), { token: viewer })).body.data.last_page;
    const countOf = async () =>
      Number(
        (
          await db
            .selectFrom('backup_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('node_id', '=', nodeB)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await countOf();
    expect(await lastPageOf()).toBe(before);
    const added = await db
      .insertInto('backup_events')
      .values(
        [1, 2, 3].map(() => ({
          job_id: jobB,
          node_id: nodeB,
          mode: 'full',
          source_dataset: `extra-${T}`,
          target_endpoint: 'x',
          status: 'queued',
          output: '',
          error: '',
        })),
      )
      .returning('id')
      .execute();
    expect(await lastPageOf()).toBe(before + 3);
    await db.updateTable('backup_events').set({ status: 'failed', error: 'boom' }).where('id', '=', added[0].id).execute();
    expect(await lastPageOf()).toBe(before + 3);
    const search = await call('GET', path({ search: `extra-${T}`, size: 1 }), { token: viewer });
    expect(search.body.data.last_page).toBe(3);
    await db
      .deleteFrom('backup_events')
      .where(
        'id',
        'in',
        added.map((a) => a.id),
      )
      .execute();
    expect(await lastPageOf()).toBe(before);
    expect(await countOf()).toBe(before);
  });

  test.each([
    ['id', 'id', 'asc'],
    ['jobId', 'job_id', 'desc'],
    ['mode', 'mode', 'asc'],
    ['sourceDataset', 'source_dataset', 'desc'],
    ['targetEndpoint', 'target_endpoint', 'asc'],
    ['status', 'status', 'asc'],
    ['createdAt', 'created_at', 'desc'],
    ['startedAt', 'started_at', 'asc'],
    ['completedAt', 'completed_at', 'asc'],
    ['completedAt', 'completed_at', 'desc'],
    ['updatedAt', 'updated_at', 'asc'],
  ] as const)('sort by %s (%s) %s', async (field, col, dir) => {
    const res = await call('GET', path({ search: T, size: 100, 'sort[0][field]': field, 'sort[0][dir]': dir }), { token: viewer });
    expectEnvelope(res, 200);
    expect(ids(res)).toEqual(expectedOrder(rows, col as keyof Row, dir));
  });

  test('sort parameters arrive with literal or percent-encoded brackets', async () => {
    const literal = await call('GET', `/cluster/backups/events/remote?search=${T}&size=100&sort[0][field]=id&sort[0][dir]=asc`, { token: viewer });
    expectEnvelope(literal, 200);
    expect(ids(literal)).toEqual(rows.map((r) => r.id).sort((a, b) => a - b));
    const encoded = await call('GET', `/cluster/backups/events/remote?search=${T}&size=100&sort%5B0%5D%5Bfield%5D=id&sort%5B0%5D%5Bdir%5D=desc`, {
      token: viewer,
    });
    expect(ids(encoded)).toEqual(rows.map((r) => r.id).sort((a, b) => b - a));
  });

  test('a dir alone keeps the default field', async () => {
    const res = await call('GET', path({ nodeId: nodeB, size: 100, 'sort[0][dir]': 'asc' }), { token: viewer });
    expect(ids(res)).toEqual(
      expectedOrder(
        rows.filter((r) => r.node_id === nodeB),
        'started_at',
        'asc',
      ),
    );
  });

  test('404 cluster_node_not_found for an unknown node', async () => {
    const missing = randomUUID();
    const res = await call('GET', path({ nodeId: missing }), { token: viewer });
    expectEnvelope(res, 404, 'cluster_node_not_found');
    expect(res.body.error).toContain(missing);
    expect(res.body.data).toBeNull();
  });

  test.each([
    ['page=0', 'query.page'],
    ['page=-1', 'query.page'],
    ['page=abc', 'query.page'],
    ['page=1.5', 'query.page'],
    ['size=0', 'query.size'],
    ['size=101', 'query.size'],
    ['size=ten', 'query.size'],
    ['jobId=0', 'query.jobId'],
    ['jobId=2147483648', 'query.jobId'],
    ['jobId=x', 'query.jobId'],
    ['nodeId=', 'query.nodeId'],
    [`nodeId=${'x'.repeat(65)}`, 'query.nodeId'],
    ['sort[0][field]=output', 'query.sort[0][field]'],
    ['sort[0][field]=started_at', 'query.sort[0][field]'],
    ['sort[0][dir]=up', 'query.sort[0][dir]'],
    [`search=${'a'.repeat(201)}`, 'query.search'],
    ['search=a%1Fb', 'query.search'],
    ['foo=1', 'query.foo'],
  ])('400 for %s naming %s', async (qs, field) => {
    const res = await call('GET', `/cluster/backups/events/remote?${qs}`, { token: viewer });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain(`${field}:`);
    expect(res.body.data).toBeNull();
  });

  test('400 lists every bad field at once', async () => {
    const res = await call('GET', '/cluster/backups/events/remote?page=0&size=500&sort[0][dir]=sideways', { token: viewer });
    expectEnvelope(res, 400, 'validation_failed');
    for (const f of ['query.page', 'query.size', 'query.sort[0][dir]']) expect(res.body.error).toContain(f);
  });

  test('401 without a token, 403 for an agent token', async () => {
    expectEnvelope(await call('GET', path({}), { token: null }), 401, 'unauthorized');
    expectEnvelope(await call('GET', path({}), { token: await tokenFor('agent', nodeA) }), 403, 'forbidden');
  });
});
