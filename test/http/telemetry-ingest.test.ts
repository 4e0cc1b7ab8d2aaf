import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { arcSample, createHost, poolSample, sample } from './zfs-fixtures.ts';
import { streamHeads } from '#domain/telemetry/cursors';

const post = (token: string | null, body: unknown) => call('POST', '/agent/telemetry', { token, body });

describe('POST /agent/telemetry (agent ingest feeding E14)', () => {
  test('stores the samples of the token’s node; a retried post is stored once; E14 then shows them', async () => {
    const host = await createHost();
    const token = await tokenFor('agent', host.nodeId);
    const before = await streamHeads(testDb());
    const t = Date.now() - 60_000;
    const samples = [
      sample(t + 10_000, [poolSample(host.tank, { writeIOPS: 2 })], arcSample({ hits: 30, misses: 10 })),
      sample(t, [poolSample(host.tank, { writeIOPS: 1 })], arcSample({ hits: 10, misses: 10 })),
    ];
    const res = await post(token, { samples });
    expectEnvelope(res, 200, 'telemetry_stored');
    expect(res.body.data).toEqual({ pools: 2, arc: 1, skipped: 0, watched: false });

    const retry = await post(token, { samples });
    expectEnvelope(retry, 200);
    expect(retry.body.data).toEqual({ pools: 0, arc: 0, skipped: 2, watched: false });

    const view = await call('GET', `/zfs/dashboard/history/delta?poolAfter=${before.pool}&arcAfter=${before.arc}&nodeId=${host.nodeId}`, {
      token: await tokenFor('viewer'),
    });
    expectEnvelope(view, 200);
    expect(view.body.data.pools[0].points.map((p: any) => p.writeIOPS)).toEqual([1, 2]);
    expect(view.body.data.arc).toHaveLength(1);
    expect(view.body.data.arc[0].hitRatio).toBe(1);

    // rows are numbered within their node and pool (E14 counts "newer than the cursor" with these)
    const third = sample(t + 20_000, [poolSample(host.tank), poolSample(host.backup)], arcSample({ hits: 40, misses: 10 }));
    expectEnvelope(await post(token, { samples: [third] }), 200);
    const rows = await testDb()
      .selectFrom('pool_telemetry')
      .select(['pool_guid', 'node_seq', 'pool_seq'])
      .where('node_id', '=', host.nodeId)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.pool_guid, r.node_seq, r.pool_seq])).toEqual([
      [host.tank.guid, 1, 1],
      [host.tank.guid, 2, 2],
      [host.tank.guid, 3, 3],
      [host.backup.guid, 4, 1],
    ]);
    const arcSeqs = await testDb().selectFrom('arc_telemetry').select('node_seq').where('node_id', '=', host.nodeId).orderBy('id').execute();
    expect(arcSeqs.map((r) => r.node_seq)).toEqual([1, 2]);

    const node = await testDb().selectFrom('nodes').select('last_seen_at').where('id', '=', host.nodeId).executeTakeFirstOrThrow();
    expect(Date.now() - node.last_seen_at!.getTime()).toBeLessThan(30_000);
    const state = await testDb().selectFrom('telemetry_nodes').selectAll().where('node_id', '=', host.nodeId).executeTakeFirstOrThrow();
    expect(state.last_sample_at!.getTime()).toBe(t + 20_000);
    expect(state.maintained_at).not.toBeNull();
  });

  test('400 naming each bad field of a sample', async () => {
    const host = await createHost();
    const token = await tokenFor('agent', host.nodeId);
    const bad = {
      samples: [
        {
          time: -1,
          intervalSeconds: 0,
          pools: [{ ...poolSample(host.tank), guid: 'tank', fragmentation: 101, extra: 1 }],
          arc: { counters: { hits: 1 }, sizes: arcSample().sizes },
        },
      ],
    };
    const res = await post(token, bad);
    expectEnvelope(res, 400, 'validation_failed');
    for (const f of [
      'body.samples[0].time',
      'body.samples[0].intervalSeconds',
      'body.samples[0].pools[0].guid',
      'body.samples[0].pools[0].fragmentation',
      'body.samples[0].pools[0].extra',
      'body.samples[0].arc.counters.misses: is required',
    ]) {
      expect(res.body.error).toContain(f);
    }
    expectEnvelope(await post(token, { samples: [] }), 400);
    expectEnvelope(await post(token, {}), 400);
  });

  test('401 without a token; 403 for people’s tokens and for an agent token bound to no node', async () => {
    const body = { samples: [sample(Date.now(), [])] };
    expectEnvelope(await post(null, body), 401);
    expectEnvelope(await post(await tokenFor('admin'), body), 403, 'forbidden');
    const unbound = await post(await tokenFor('agent'), body);
    expectEnvelope(unbound, 403, 'forbidden');
    expect(unbound.body.error).toContain('not bound to a node');
  });

  test('404 node_not_registered for the token of a node that never registered', async () => {
    const res = await post(await tokenFor('agent', randomUUID()), { samples: [sample(Date.now(), [])] });
    expectEnvelope(res, 404, 'node_not_registered');
  });
});
