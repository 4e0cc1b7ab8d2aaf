/**
 * Many agents posting telemetry at once (the steady state of a large fleet): every ingest stores its samples,
 * none is refused for a conflict on the streams' id counters, and the ids handed out are exactly the rows
 * stored (each once, from the counters). Runs on the suite's store: PGlite, and PostgreSQL on CI's second pass, where
 * concurrent transactions really overlap.
 */
import { createDb } from '#store/db';
import { ingestTelemetry } from '#domain/telemetry/ingest';
import { streamHeads } from '#domain/telemetry/cursors';
import { testDb } from '../helpers/api.ts';
import { arcSample, createHost, poolSample, sample } from './zfs-fixtures.ts';

const HOSTS = 24;
const ROUNDS = 3;

test('concurrent ingests of many nodes all succeed, and the stream ids match the rows stored', async () => {
  const hosts = await Promise.all(Array.from({ length: HOSTS }, () => createHost()));
  // as many connections as a busy fleet's concurrent function instances: the transactions overlap
  const db = createDb(process.env.HM_TEST_DATABASE_URL!, 12);
  try {
    const before = await streamHeads(testDb());
    const t0 = Date.now() - 10 * 60_000;
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.allSettled(
        hosts.map((h) =>
          ingestTelemetry(db, h.nodeId, [
            sample(t0 + round * 10_000, [poolSample(h.tank), poolSample(h.backup)], arcSample({ hits: 10 * (round + 1), misses: round + 1 })),
          ]),
        ),
      );
      for (const r of results) if (r.status === 'rejected') failures.push((r.reason as Error).message);
    }
    expect(failures).toEqual([]);

    const ids = (table: 'pool_telemetry' | 'arc_telemetry') =>
      testDb()
        .selectFrom(table)
        .select('id')
        .where(
          'node_id',
          'in',
          hosts.map((h) => h.nodeId),
        )
        .orderBy('id')
        .execute()
        .then((rows) => rows.map((r) => Number(r.id)));
    const after = await streamHeads(testDb());
    const poolIds = await ids('pool_telemetry');
    const arcIds = await ids('arc_telemetry');
    // two pools per sample; an ARC row from the second sample of a node on (the first is the counters' base)
    expect(poolIds).toHaveLength(HOSTS * ROUNDS * 2);
    expect(arcIds).toHaveLength(HOSTS * (ROUNDS - 1));
    expect(new Set(poolIds).size).toBe(poolIds.length);
    // every id came from the counters while this test ran (other files may ingest meanwhile, in between)
    for (const [got, lo, hi] of [
      [poolIds, before.pool, after.pool],
      [arcIds, before.arc, after.arc],
    ] as const) {
      expect(got[0]).toBeGreaterThan(lo);
      expect(got[got.length - 1]).toBeLessThanOrEqual(hi);
    }
  } finally {
    await db.destroy();
  }
});
