// @tier stack
import { testDb } from '../helpers/api.ts';
import { arcSample, createHost, poolSample, sample } from '../http/zfs-fixtures.ts';
import { ingestTelemetry, arcRow } from '#domain/telemetry/ingest';
import { maintainTelemetry } from '#domain/telemetry/retention';
import { worstHealth } from '#domain/telemetry/health';
import { ratio } from '#domain/telemetry/rows';

describe('telemetry pure rules', () => {
  test('ratio of one interval; 0 without any access', () => {
    expect(ratio(9, 1)).toBe(0.9);
    expect(ratio(0, 0)).toBe(0);
  });

  test('worst health ranks unknown words as bad, never as ONLINE', () => {
    expect(worstHealth(['ONLINE', 'DEGRADED', 'ONLINE'])).toBe('DEGRADED');
    expect(worstHealth(['DEGRADED', 'FAULTED'])).toBe('FAULTED');
    expect(worstHealth(['ONLINE', 'WEIRD'])).toBe('WEIRD');
  });

  test('an ARC row needs a base older than the sample and counters that did not go backwards', () => {
    const t = new Date(20_000);
    const arc = arcSample({ hits: 100, misses: 50 });
    expect(arcRow('n', t, arc, null)).toBeNull();
    expect(arcRow('n', t, arc, { counters: arcSample({ hits: 10 }).counters, at: new Date(20_000) })).toBeNull();
    expect(arcRow('n', t, arc, { counters: arcSample({ hits: 101 }).counters, at: new Date(10_000) })).toBeNull();
    expect(arcRow('n', t, arc, { counters: arcSample({ hits: 10, misses: 20 }).counters, at: new Date(10_000) })).toMatchObject({
      hits: 90,
      misses: 30,
      interval_ms: 10_000,
    });
  });
});

describe('telemetry roll-ups and retention (store)', () => {
  const MIN = 60_000;
  const now = new Date(Math.floor(Date.now() / (5 * MIN)) * 5 * MIN + 2 * MIN); // two minutes into a 5-minute bucket
  const b0 = now.getTime() - 7 * MIN; // start of a complete 5-minute bucket

  test('1-minute and 5-minute roll-ups keep counts, averages, maxima, last and worst health; raw rows expire after 24 h', async () => {
    const host = await createHost();
    const db = testDb();
    const old = now.getTime() - 25 * 3_600_000;
    const samples = [sample(old, [poolSample(host.tank)], arcSample())];
    // minute 0: readIOPS 10..60, one DEGRADED sample; minute 1: readIOPS 100 each; ARC: 10 hits + 10 misses per 10 s
    for (let i = 0; i < 12; i++) {
      const readIOPS = i < 6 ? (i + 1) * 10 : 100;
      const health = i === 2 ? 'DEGRADED' : 'ONLINE';
      samples.push(
        sample(
          b0 + i * 10_000,
          [poolSample(host.tank, { readIOPS, health, allocated: 1000 + i })],
          arcSample({ hits: 10 * (i + 1), misses: 10 * (i + 1), evictions: i }),
        ),
      );
    }
    await ingestTelemetry(db, host.nodeId, samples);
    expect(await maintainTelemetry(db, host.nodeId, now, true)).toBe(true);

    const raw = await db.selectFrom('pool_telemetry').select('time').where('node_id', '=', host.nodeId).execute();
    expect(raw).toHaveLength(12);
    expect(raw.every((r) => r.time.getTime() >= b0)).toBe(true);

    const minutes = await db
      .selectFrom('pool_telemetry_rollups')
      .selectAll()
      .where('node_id', '=', host.nodeId)
      .where('resolution_seconds', '=', 60)
      .orderBy('time')
      .execute();
    // the 25-hour-old sample was rolled up before raw rows expired, so its minute exists too
    const recent = minutes.filter((m) => m.time.getTime() >= b0);
    expect(recent.map((m) => m.time.getTime())).toEqual([b0, b0 + MIN]);
    expect(recent[0]).toMatchObject({
      sample_count: 6,
      interval_seconds: 60,
      read_iops: 35,
      max_read_iops: 60,
      worst_health: 'DEGRADED',
      health: 'ONLINE',
      allocated: 1005,
      pool_guid: host.tank.guid,
    });
    expect(recent[1]).toMatchObject({ sample_count: 6, read_iops: 100, max_read_iops: 100, worst_health: 'ONLINE', allocated: 1011 });

    const fives = await db
      .selectFrom('pool_telemetry_rollups')
      .selectAll()
      .where('node_id', '=', host.nodeId)
      .where('resolution_seconds', '=', 300)
      .where('time', '>=', new Date(b0))
      .execute();
    expect(fives).toHaveLength(1);
    expect(fives[0]).toMatchObject({ sample_count: 12, interval_seconds: 300, read_iops: 68, max_read_iops: 100, worst_health: 'DEGRADED', allocated: 1011 });

    const arcMinutes = await db
      .selectFrom('arc_telemetry_rollups')
      .selectAll()
      .where('node_id', '=', host.nodeId)
      .where('resolution_seconds', '=', 60)
      .where('time', '>=', new Date(b0))
      .orderBy('time')
      .execute();
    // the first recent sample's base is the 25-hour-old one, whose counters were all 0
    expect(arcMinutes.map((a) => [a.sample_count, a.hits, a.misses])).toEqual([
      [6, 60, 60],
      [6, 60, 60],
    ]);
    expect(arcMinutes[1].interval_ms).toBe(60_000);

    // within a minute it does not run again unless forced
    expect(await maintainTelemetry(db, host.nodeId, new Date(now.getTime() + 1000))).toBe(false);

    // the next run picks up from where complete 5-minute buckets ended: a newer sample's minute is rolled up
    await ingestTelemetry(db, host.nodeId, [sample(now.getTime() + 30_000, [poolSample(host.tank, { readIOPS: 7 })])]);
    expect(await maintainTelemetry(db, host.nodeId, new Date(now.getTime() + 2 * MIN), true)).toBe(true);
    const next = await db
      .selectFrom('pool_telemetry_rollups')
      .selectAll()
      .where('node_id', '=', host.nodeId)
      .where('resolution_seconds', '=', 60)
      .where('time', '=', now)
      .execute();
    expect(next.map((r) => [r.sample_count, r.read_iops])).toEqual([[1, 7]]);
  });

  test('roll-ups older than their retention are deleted', async () => {
    const host = await createHost();
    const db = testDb();
    await ingestTelemetry(db, host.nodeId, [
      sample(now.getTime() - 8 * 86_400_000, [poolSample(host.tank)]),
      sample(now.getTime() - 2 * MIN, [poolSample(host.tank)]),
    ]);
    await db
      .updateTable('telemetry_nodes')
      .set({ rollup_from: new Date(now.getTime() - 8 * 86_400_000) })
      .where('node_id', '=', host.nodeId)
      .execute();
    // roll up as of 8 days ago (the sample's minute is complete then) …
    await maintainTelemetry(db, host.nodeId, new Date(now.getTime() - 8 * 86_400_000 + 10 * MIN), true);
    const rolled = await db.selectFrom('pool_telemetry_rollups').select(['resolution_seconds']).where('node_id', '=', host.nodeId).execute();
    expect(rolled.map((r) => r.resolution_seconds).sort()).toEqual([300, 60]);
    // … then today: the 1-minute roll-up (7 days) is gone, the 5-minute one (90 days) stays
    await maintainTelemetry(db, host.nodeId, now, true);
    const kept = await db
      .selectFrom('pool_telemetry_rollups')
      .select(['resolution_seconds', 'time'])
      .where('node_id', '=', host.nodeId)
      .where('time', '<', new Date(now.getTime() - 86_400_000))
      .execute();
    expect(kept.map((r) => r.resolution_seconds)).toEqual([300]);
  });
});
