import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { arcSample, createHost, poolSample, sample } from './zfs-fixtures.ts';
import { ingestTelemetry } from '#domain/telemetry/ingest';
import { streamHeads } from '#domain/telemetry/cursors';

/** GET /api/zfs/dashboard/history: E14's records, averaged into buckets by the store. */
const history = async (q: string, token?: string | null) =>
  call('GET', `/zfs/dashboard/history?${q}`, { token: token === undefined ? await tokenFor('viewer') : token });

// a fixed grid origin one hour back, on a minute boundary
const T0 = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;

test('averages each minute of 10 s samples into one point (rates averaged, maxima kept, worst health kept), ARC counters summed', async () => {
  const host = await createHost();
  const tank = { guid: host.tank.guid, name: host.tank.name };
  // two minutes of samples: readIOPS 1..6 in the first, 7..12 in the second; one DEGRADED sample in the first
  const samples = [];
  for (let i = 0; i < 12; i++) {
    samples.push(
      sample(
        T0 + i * 10_000,
        [poolSample(tank, { readIOPS: i + 1, health: i === 2 ? 'DEGRADED' : 'ONLINE' })],
        arcSample({ hits: 1000 + i * 90, misses: 1000 + i * 10 }),
      ),
    );
  }
  await ingestTelemetry(testDb(), host.nodeId, samples);

  // 2 minutes in 2 points: one per minute
  const res = await history(`nodeId=${host.nodeId}&poolGuid=${tank.guid}&from=${T0}&to=${T0 + 120_000}&points=2`);
  expectEnvelope(res, 200, 'dashboard_history');
  const d = res.body.data;
  expect(d.resolutionSeconds).toBe(60);
  expect(d.from).toBe(T0);
  const heads = await streamHeads(testDb());
  expect(d.cursors).toEqual({ pool: heads.pool, arc: heads.arc });
  expect(d.pools).toHaveLength(1);
  const pts = d.pools[0].points;
  expect(pts.map((p: any) => p.time)).toEqual([T0, T0 + 60_000]);
  expect(pts.map((p: any) => p.readIOPS)).toEqual([4, 10]); // round(avg 1..6 = 3.5) → 4, avg 7..12 = 9.5 → 10
  expect(pts.map((p: any) => p.sampleCount)).toEqual([6, 6]);
  expect(pts.map((p: any) => p.maxReadIOPS)).toEqual([6, 12]);
  expect(pts.map((p: any) => p.worstHealth)).toEqual(['DEGRADED', 'ONLINE']);
  expect(pts.map((p: any) => p.health)).toEqual(['ONLINE', 'ONLINE']);
  expect(pts[0].intervalSeconds).toBe(60);
  // ARC: the first sample is only the base; each interval is 90 hits / 10 misses, so every bucket is 90 %
  expect(d.arc.map((a: any) => a.time)).toEqual([T0, T0 + 60_000]);
  for (const a of d.arc) expect(a.hitRatio).toBeCloseTo(0.9, 10);

  // the default of 360 points over 2 minutes would be finer than the samples: buckets stay 10 s wide
  const fine = await history(`nodeId=${host.nodeId}&poolGuid=${tank.guid}&from=${T0}&to=${T0 + 120_000}`);
  expect(fine.body.data.resolutionSeconds).toBe(10);
  expect(fine.body.data.pools[0].points.map((p: any) => p.readIOPS)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
}, 60_000);

test('a day at the default resolution is at most 360 points per series', async () => {
  const host = await createHost();
  const tank = { guid: host.tank.guid, name: host.tank.name };
  const start = Date.now() - 86_400_000 + 60_000;
  // one sample every 2 minutes over the day (720): enough to fill every 4-minute bucket
  const samples = Array.from({ length: 720 }, (_, i) => sample(start + i * 120_000, [poolSample(tank)]));
  for (let i = 0; i < samples.length; i += 240) await ingestTelemetry(testDb(), host.nodeId, samples.slice(i, i + 240));
  // one clock reading for both ends: two could be a millisecond apart, a window of 86 400 001 ms (241 s buckets)
  const to = Date.now();
  const res = await history(`nodeId=${host.nodeId}&from=${to - 86_400_000}&to=${to}`);
  expectEnvelope(res, 200, 'dashboard_history');
  expect(res.body.data.resolutionSeconds).toBe(240);
  const n = res.body.data.pools.find((p: any) => p.guid === tank.guid).points.length;
  expect(n).toBeGreaterThan(300);
  expect(n).toBeLessThanOrEqual(361);
}, 120_000);

test('bad windows are 400 naming the field; an unknown pool is 404; no token is 401', async () => {
  const host = await createHost();
  const backwards = await history(`nodeId=${host.nodeId}&from=2000&to=1000`);
  expectEnvelope(backwards, 400, 'validation_failed');
  expect(backwards.body.error).toMatch(/\bto\b/);
  const missing = await history(`nodeId=${host.nodeId}&to=1000`);
  expectEnvelope(missing, 400, 'validation_failed');
  expect(missing.body.error).toMatch(/from/);
  const tooMany = await history(`nodeId=${host.nodeId}&from=0&to=1000&points=100000`);
  expectEnvelope(tooMany, 400, 'validation_failed');
  expect(tooMany.body.error).toMatch(/points/);
  expectEnvelope(await history(`poolGuid=123456789&from=0&to=1000`), 404, 'pool_not_managed');
  expect((await history('from=0&to=1000', null)).status).toBe(401);
});
