import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { arcSample, bulkPoolRows, createHost, createPrimaryHost, poolSample, sample } from './zfs-fixtures.ts';
import { ingestTelemetry } from '#domain/telemetry/ingest';
import { streamHeads } from '#domain/telemetry/cursors';

const delta = async (q: string, token?: string | null) =>
  call('GET', `/zfs/dashboard/history/delta?${q}`, { token: token === undefined ? await tokenFor('viewer') : token });

const T0 = Date.now() - 3_600_000;

describe('E14 GET /zfs/dashboard/history/delta', () => {
  test('rows newer than the cursors, grouped per pool, ARC ratios from counter deltas; cursors advance', async () => {
    const host = await createHost();
    const tank = { guid: host.tank.guid, name: host.tank.name };
    const backup = { guid: host.backup.guid, name: host.backup.name };
    const before = await streamHeads(testDb());
    // lifetime totals are 50 % hits; the intervals between samples are 90 % and 25 %
    await ingestTelemetry(testDb(), host.nodeId, [
      sample(
        T0,
        [poolSample(tank), poolSample(backup)],
        arcSample({ hits: 1e9, misses: 1e9, demandHits: 5e8, demandMisses: 5e8, prefetchHits: 1e6, prefetchMisses: 3e6, evictions: 1e7 }),
      ),
      sample(
        T0 + 10_000,
        [poolSample(tank, { readIOPS: 11 }), poolSample(backup)],
        arcSample({
          hits: 1e9 + 900,
          misses: 1e9 + 100,
          demandHits: 5e8 + 80,
          demandMisses: 5e8 + 20,
          prefetchHits: 1e6 + 1,
          prefetchMisses: 3e6 + 3,
          evictions: 1e7 + 50,
          l2ReadBytes: 40_960,
        }),
      ),
      sample(
        T0 + 20_000,
        [poolSample(tank, { readIOPS: 12, health: 'DEGRADED' })],
        arcSample({
          hits: 1e9 + 1000,
          misses: 1e9 + 400,
          demandHits: 5e8 + 80,
          demandMisses: 5e8 + 20,
          prefetchHits: 1e6 + 1,
          prefetchMisses: 3e6 + 3,
          evictions: 1e7 + 50,
          l2ReadBytes: 40_960,
        }),
      ),
    ]);

    const res = await delta(`poolAfter=${before.pool}&arcAfter=${before.arc}&nodeId=${host.nodeId}`);
    expectEnvelope(res, 200, 'dashboard_history_delta');
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(['arc', 'cursors', 'generatedAt', 'pools', 'resetRequired', 'resolutionSeconds']);
    expect(d.resetRequired).toBe(false);
    expect(d.resolutionSeconds).toBe(10);
    expect(Math.abs(d.generatedAt - Date.now())).toBeLessThan(60_000);
    const heads = await streamHeads(testDb());
    expect(d.cursors).toEqual({ pool: heads.pool, arc: heads.arc });

    const byName = Object.fromEntries(d.pools.map((s: any) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual([backup.name, tank.name].sort());
    expect(byName[tank.name].guid).toBe(tank.guid);
    expect(byName[tank.name].points.map((p: any) => p.readIOPS)).toEqual([10, 11, 12]);
    expect(byName[tank.name].points.map((p: any) => p.time)).toEqual([T0, T0 + 10_000, T0 + 20_000]);
    expect(byName[backup.name].points).toHaveLength(2);
    const p = byName[tank.name].points[2];
    expect(p).toMatchObject({
      health: 'DEGRADED',
      worstHealth: 'DEGRADED',
      intervalSeconds: 10,
      sampleCount: 1,
      size: 1_000_000,
      allocated: 400_000,
      free: 600_000,
      fragmentation: 7,
      dedupRatio: 1,
      maxReadIOPS: 12,
    });
    const ids = d.pools.flatMap((s: any) => s.points.map((x: any) => x.id));
    expect(ids.every((id: number) => id > before.pool && id <= heads.pool)).toBe(true);

    // the first sample is only the base of the deltas: two ARC rows for three samples
    expect(d.arc).toHaveLength(2);
    const [a1, a2] = d.arc;
    expect(a1.hitRatio).toBeCloseTo(0.9, 10);
    expect(a1.demandHitRatio).toBeCloseTo(0.8, 10);
    expect(a1.prefetchHitRatio).toBeCloseTo(0.25, 10);
    expect(a1.l2HitRatio).toBe(0);
    expect(a1.evictionsPerSecond).toBeCloseTo(5, 10);
    expect(a1.l2ReadBytesPerSecond).toBe(4096);
    expect(a1.time).toBe(T0 + 10_000);
    expect(a2.hitRatio).toBeCloseTo(100 / 400, 10);
    expect(a2.demandHitRatio).toBe(0); // no demand access in that interval
    expect(a2.evictionsPerSecond).toBe(0);
    for (const k of [
      'compressedSize',
      'dataSize',
      'evictNotEnoughEvents',
      'headerSize',
      'id',
      'l2Allocated',
      'l2DeviceCount',
      'l2ReadBytesPerSecond',
      'l2Size',
      'l2WriteBytesPerSecond',
      'maxSize',
      'memoryThrottleEvents',
      'metadataSize',
      'minSize',
      'otherSize',
      'size',
      'targetSize',
      'time',
      'uncompressedSize',
    ]) {
      expect(Number.isInteger(a1[k])).toBe(true);
    }

    // polling again with the returned cursors: nothing new
    const again = await delta(`poolAfter=${d.cursors.pool}&arcAfter=${d.cursors.arc}&nodeId=${host.nodeId}`);
    expect(again.body.data).toMatchObject({ pools: [], arc: [], resetRequired: false, cursors: d.cursors });

    // one more sample: only it comes back
    await ingestTelemetry(testDb(), host.nodeId, [
      sample(
        T0 + 30_000,
        [poolSample(tank, { readIOPS: 13 })],
        arcSample({
          hits: 1e9 + 1010,
          misses: 1e9 + 400,
          demandHits: 5e8 + 80,
          demandMisses: 5e8 + 20,
          prefetchHits: 1e6 + 1,
          prefetchMisses: 3e6 + 3,
          evictions: 1e7 + 50,
          l2ReadBytes: 40_960,
        }),
      ),
    ]);
    const next = await delta(`poolAfter=${d.cursors.pool}&arcAfter=${d.cursors.arc}&nodeId=${host.nodeId}`);
    expect(next.body.data.resetRequired).toBe(false);
    expect(next.body.data.pools).toHaveLength(1);
    expect(next.body.data.pools[0].points.map((x: any) => x.readIOPS)).toEqual([13]);
    expect(next.body.data.arc).toHaveLength(1);
    expect(next.body.data.arc[0].hitRatio).toBe(1);
    expect(next.body.data.cursors.pool).toBeGreaterThan(d.cursors.pool);
  });

  test('poolGuid narrows the points to one pool (ARC of its node); other nodes never mix in', async () => {
    const a = await createHost();
    const b = await createHost();
    const before = await streamHeads(testDb());
    await ingestTelemetry(testDb(), a.nodeId, [
      sample(T0, [poolSample(a.tank), poolSample(a.backup)], arcSample({ hits: 1 })),
      sample(T0 + 10_000, [poolSample(a.tank), poolSample(a.backup)], arcSample({ hits: 2 })),
    ]);
    await ingestTelemetry(testDb(), b.nodeId, [sample(T0, [poolSample(b.tank)], arcSample()), sample(T0 + 10_000, [poolSample(b.tank)], arcSample())]);
    const res = await delta(`poolAfter=${before.pool}&arcAfter=${before.arc}&poolGuid=${a.tank.guid}`);
    expectEnvelope(res, 200);
    expect(res.body.data.pools.map((s: any) => s.guid)).toEqual([a.tank.guid]);
    expect(res.body.data.pools[0].points).toHaveLength(2);
    expect(res.body.data.arc).toHaveLength(1);
    expect(res.body.data.arc[0].hitRatio).toBe(1);
    const onB = await delta(`poolAfter=${before.pool}&arcAfter=${before.arc}&nodeId=${b.nodeId}`);
    expect(onB.body.data.pools.map((s: any) => s.guid)).toEqual([b.tank.guid]);
    expect(onB.body.data.arc[0].hitRatio).toBe(0); // no access at all in that interval
  });

  test('without nodeId or poolGuid the primary node’s dashboard is read', async () => {
    const primary = await createPrimaryHost();
    const other = await createHost();
    const before = await streamHeads(testDb());
    await ingestTelemetry(testDb(), other.nodeId, [sample(T0, [poolSample(other.tank)])]);
    await ingestTelemetry(testDb(), primary.nodeId, [sample(T0, [poolSample(primary.backup)])]);
    const res = await delta(`poolAfter=${before.pool}&arcAfter=${before.arc}`);
    expectEnvelope(res, 200);
    expect(res.body.data.pools.map((s: any) => s.guid)).toEqual([primary.backup.guid]);
  });

  test('404 pool_not_managed for an unknown pool, and for a pool of another node than nodeId', async () => {
    const host = await createHost();
    let res = await delta('poolAfter=0&arcAfter=0&poolGuid=12345678901234567890');
    expectEnvelope(res, 404, 'pool_not_managed');
    expect(res.body.error).toBe('pool 12345678901234567890 is not managed');
    res = await delta('poolAfter=0&arcAfter=0&poolGuid=tank');
    expectEnvelope(res, 404, 'pool_not_managed');
    const other = await createHost();
    res = await delta(`poolAfter=0&arcAfter=0&poolGuid=${host.tank.guid}&nodeId=${other.nodeId}`);
    expectEnvelope(res, 404, 'pool_not_managed');
    res = await delta('poolAfter=0&arcAfter=0&nodeId=no-such-node');
    expectEnvelope(res, 404, 'cluster_node_not_found');
  });

  test('a cursor ahead of the newest row: resetRequired, the latest window, cursors at the heads', async () => {
    const host = await createHost();
    await ingestTelemetry(testDb(), host.nodeId, [
      sample(T0, [poolSample(host.tank)], arcSample()),
      sample(T0 + 10_000, [poolSample(host.tank)], arcSample({ hits: 5 })),
    ]);
    const heads = await streamHeads(testDb());
    for (const q of [`poolAfter=${heads.pool + 1000}&arcAfter=${heads.arc}`, `poolAfter=${heads.pool}&arcAfter=${heads.arc + 1}`]) {
      const res = await delta(`${q}&nodeId=${host.nodeId}`);
      expectEnvelope(res, 200);
      expect(res.body.data.resetRequired).toBe(true);
      expect(res.body.data.cursors).toEqual(heads);
      // the window: both streams' latest rows of this node, although the cursors of one were current
      expect(res.body.data.pools[0].points).toHaveLength(2);
      expect(res.body.data.arc).toHaveLength(1);
    }
  });

  describe.each([
    ['numbered rows (as the ingest writes them)', true],
    ['unnumbered rows (counted instead)', false],
  ])('%s', (_label, numbered) => {
    test('exactly 10 000 newer rows are returned; 10 001 require a reset with the latest 15 minutes only', async () => {
      const host = await createHost();
      const pool = { guid: host.tank.guid, name: host.tank.name };
      const start = await streamHeads(testDb());
      // 10 000 rows 10 s apart span ~27.8 h; the newest lies 10 s before `end`
      const end = Date.now();
      await bulkPoolRows(host.nodeId, pool, 10_000, new Date(end - 10_000 * 10_000), { numbered });
      // another node's rows in between: out of scope, never counted
      const other = await createHost();
      await bulkPoolRows(other.nodeId, other.tank, 5, new Date(end), { numbered });
      for (const scope of [`nodeId=${host.nodeId}`, `poolGuid=${pool.guid}`]) {
        const full = await delta(`poolAfter=${start.pool}&arcAfter=${start.arc}&${scope}`);
        expectEnvelope(full, 200);
        expect(full.body.data.resetRequired).toBe(false);
        expect(full.body.data.pools[0].points).toHaveLength(10_000);
        expect(full.body.data.pools[0].points[0].id).toBe(start.pool + 1);
      }

      await bulkPoolRows(host.nodeId, pool, 1, new Date(end), { numbered });
      for (const scope of [`nodeId=${host.nodeId}`, `poolGuid=${pool.guid}`]) {
        const over = await delta(`poolAfter=${start.pool}&arcAfter=${start.arc}&${scope}`);
        expectEnvelope(over, 200);
        expect(over.body.data.resetRequired).toBe(true);
        const points = over.body.data.pools[0].points;
        // newest row at `end`; the window keeps rows within 900 s of it: 91 rows (end-900 s … end, 10 s apart)
        expect(points).toHaveLength(91);
        expect(points[points.length - 1].time).toBe(end);
        expect(points[0].time).toBe(end - 900_000);
        expect(points.map((p: any) => p.id)).toEqual([...points.map((p: any) => p.id)].sort((a: number, b: number) => a - b));
        expect(over.body.data.cursors.pool).toBe((await streamHeads(testDb())).pool);
        // one row fewer behind: no reset
        const caughtUp = await delta(`poolAfter=${start.pool + 1}&arcAfter=${start.arc}&${scope}`);
        expect(caughtUp.body.data.resetRequired).toBe(false);
        expect(caughtUp.body.data.pools[0].points).toHaveLength(10_000);
      }

      // rows up to the cursor pruned: what remains after it is what counts
      await testDb()
        .deleteFrom('pool_telemetry')
        .where('node_id', '=', host.nodeId)
        .where('id', '<=', start.pool + 5)
        .execute();
      const pruned = await delta(`poolAfter=${start.pool + 3}&arcAfter=${start.arc}&nodeId=${host.nodeId}`);
      expect(pruned.body.data.resetRequired).toBe(false);
      expect(pruned.body.data.pools[0].points).toHaveLength(9_996);
      const prunedOver = await delta(`poolAfter=${start.pool}&arcAfter=${start.arc}&nodeId=${host.nodeId}`);
      expect(prunedOver.body.data.resetRequired).toBe(false);
    });
  });

  test('counters that go backwards (a reboot) start a new base instead of a negative delta', async () => {
    const host = await createHost();
    const before = await streamHeads(testDb());
    await ingestTelemetry(testDb(), host.nodeId, [
      sample(T0, [], arcSample({ hits: 1000, misses: 1000 })),
      sample(T0 + 10_000, [], arcSample({ hits: 10, misses: 90 })),
      sample(T0 + 20_000, [], arcSample({ hits: 40, misses: 100 })),
    ]);
    const res = await delta(`poolAfter=${before.pool}&arcAfter=${before.arc}&nodeId=${host.nodeId}`);
    expect(res.body.data.arc).toHaveLength(1);
    expect(res.body.data.arc[0].hitRatio).toBeCloseTo(30 / 40, 10);
  });

  test('400 naming the cursors when missing, negative or not integers', async () => {
    let res = await delta('');
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('query.poolAfter: is required');
    expect(res.body.error).toContain('query.arcAfter: is required');
    res = await delta('poolAfter=-1&arcAfter=abc');
    expectEnvelope(res, 400);
    expect(res.body.error).toContain('query.poolAfter: must be >= 0');
    expect(res.body.error).toContain('query.arcAfter: must be integer');
    res = await delta('poolAfter=1.5&arcAfter=0&extra=1');
    expect(res.body.error).toContain('query.poolAfter: must be integer');
    expect(res.body.error).toContain('query.extra: is not an accepted field');
  });

  test('401 without a token; 403 for an agent token', async () => {
    expectEnvelope(await delta('poolAfter=0&arcAfter=0', null), 401);
    expectEnvelope(await delta('poolAfter=0&arcAfter=0', await tokenFor('agent')), 403);
  });
});
