import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';

/** GET /api/cluster/backups/jobs over real HTTP. */
const T = uid();
const node = randomUUID();
let viewer: string;
let jobIds: number[];

beforeAll(async () => {
  viewer = await tokenFor('viewer');
  await testDb()
    .insertInto('nodes')
    .values({ id: node, name: `n-${T}`, ip: '10.2.2.2', status: 'member', inventory: {} })
    .execute();
  const rows = await testDb()
    .insertInto('backup_jobs')
    .values(
      [1, 2, 3].map((i) => ({
        name: `job-${i}-${T}`,
        node_id: node,
        mode: i === 3 ? 'full' : 'incremental',
        source_dataset: `zroot/jails/app${i}`,
        target_endpoint: 'backup@10.0.0.9:tank/backups',
        schedule: '15 3 * * *',
        enabled: i !== 2,
      })),
    )
    .returning('id')
    .execute();
  jobIds = rows.map((r) => r.id);
});

describe('GET /cluster/backups/jobs', () => {
  test('a node’s jobs by id, as records', async () => {
    const res = await call('GET', `/cluster/backups/jobs?nodeId=${node}`, { token: viewer });
    expectEnvelope(res, 200, 'backup_jobs_listed');
    expect(res.body.data.data.map((j: { id: number }) => j.id)).toEqual(jobIds);
    expect(res.body.data.last_page).toBe(1);
    const row = await testDb().selectFrom('backup_jobs').selectAll().where('id', '=', jobIds[1]).executeTakeFirstOrThrow();
    expect(res.body.data.data[1]).toEqual({
      id: row.id,
      name: `job-2-${T}`,
      nodeId: node,
      mode: 'incremental',
      sourceDataset: 'zroot/jails/app2',
      targetEndpoint: 'backup@10.0.0.9:tank/backups',
      schedule: '15 3 * * *',
      enabled: false,
      guest: null,
      target: null,
      retention: 7,
      nextRunAt: null,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
  });

  test('paging', async () => {
    const res = await call('GET', `/cluster/backups/jobs?nodeId=${node}&size=2&page=2`, { token: viewer });
    expect(res.body.data).toMatchObject({ last_page: 2 });
    expect(res.body.data.data.map((j: { id: number }) => j.id)).toEqual([jobIds[2]]);
  });

  test('404 for an unknown node, 400 for bad paging, 401 without a token', async () => {
    expectEnvelope(await call('GET', `/cluster/backups/jobs?nodeId=${randomUUID()}`, { token: viewer }), 404, 'cluster_node_not_found');
    const bad = await call('GET', '/cluster/backups/jobs?page=0&size=101', { token: viewer });
    expectEnvelope(bad, 400, 'validation_failed');
    expect(bad.body.error).toContain('query.page');
    expect(bad.body.error).toContain('query.size');
    expectEnvelope(await call('GET', '/cluster/backups/jobs', { token: null }), 401);
  });
});
