/**
 * Many agents posting telemetry at once (the steady state of a large fleet): every ingest stores its samples,
 * none is refused for a conflict on the streams' id counters, and the ids handed out are exactly the rows
 * stored (each once, from the counters). Runs on the suite's store: PGlite, and PostgreSQL on CI's second pass, where
 * concurrent transactions really overlap.
 */
import fc from 'fast-check';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createDb } from '#store/db';
import type { Database } from '#store/tables';
import { readDelta } from '#domain/telemetry/delta';
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

/**
 * A store connection whose client, once it has sent a statement that takes the streams' id counters, stalls
 * before sending its next statement (COMMIT included) until released — as a function instance starved of CPU
 * between two statements would. `stalled` resolves when it does.
 */
function stallingDb(url: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let markStalled!: () => void;
  const stalled = new Promise<void>((r) => (markStalled = r));
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    let holdsCounters = false;
    client.query = (async (...args: unknown[]) => {
      if (holdsCounters) {
        markStalled();
        await released;
      }
      const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '');
      const result = await query(...args);
      holdsCounters = /telemetry_cursors/.test(text);
      return result;
    }) as unknown as typeof client.query;
  });
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), stalled, release };
}

test('an ingest holds the shared id counters only within one statement: a stalled client does not hold up other nodes', async () => {
  const [a, b] = await Promise.all([createHost(), createHost()]);
  const url = process.env.HM_TEST_DATABASE_URL!;
  const stalling = stallingDb(url);
  const other = createDb(url, 2);
  try {
    const t = Date.now() - 5 * 60_000;
    const two = (h: typeof a) => [
      sample(t, [poolSample(h.tank), poolSample(h.backup)], arcSample({ hits: 10, misses: 1 })),
      sample(t + 10_000, [poolSample(h.tank), poolSample(h.backup)], arcSample({ hits: 20, misses: 2 })),
    ];
    const first = ingestTelemetry(stalling.db, a.nodeId, two(a));
    // node A's ingest either finishes or stalls after taking the counters; either way, then node B posts
    const outcome = await Promise.race([first.then(() => 'stored'), stalling.stalled.then(() => 'stalled while holding the counters')]);
    // before: B waited for A's counter locks until the store's statement bound (503); now it is stored at once
    const second = await ingestTelemetry(other, b.nodeId, two(b)).then(
      (r) => r,
      (e: Error) => e.message,
    );
    stalling.release();
    expect(await first).toEqual({ pools: 4, arc: 1, skipped: 0, watched: false });
    expect(second).toEqual({ pools: 4, arc: 1, skipped: 0, watched: false });
    expect(outcome).toBe('stored');
  } finally {
    stalling.release();
    await Promise.all([stalling.db.destroy(), other.destroy()]);
  }
});

test('E14 never loses a row: readers polling the delta while ingests of several nodes commit in any interleaving', async () => {
  const hosts = await Promise.all(Array.from({ length: 3 }, () => createHost()));
  const db = createDb(process.env.HM_TEST_DATABASE_URL!, 8);
  // each run's samples lie after the previous run's: a node stores only samples newer than its last one
  let clock = Date.now() - 6 * 3_600_000;
  try {
    await fc.assert(
      fc.asyncProperty(
        // rounds of concurrent posts: (node, how many samples in the post)
        fc.array(fc.array(fc.record({ node: fc.nat({ max: hosts.length - 1 }), count: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 6 }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (rounds) => {
          const heads = await streamHeads(testDb());
          const readers = hosts.map((h) => ({ host: h, pool: heads.pool, arc: heads.arc, poolIds: [] as number[], arcIds: [] as number[], resets: 0 }));
          const poll = async (r: (typeof readers)[number]) => {
            const d = await readDelta(db, { nodeId: r.host.nodeId, poolAfter: r.pool, arcAfter: r.arc });
            if (d.resetRequired) r.resets++;
            r.poolIds.push(...d.pools.flatMap((s) => s.points.map((p) => p.id)).sort((x, y) => x - y));
            r.arcIds.push(...d.arc.map((x) => x.id));
            r.pool = d.cursors.pool;
            r.arc = d.cursors.arc;
          };
          for (const round of rounds) {
            let done = false;
            const posts = Promise.all(
              round.map(({ node, count }) => {
                const h = hosts[node];
                const samples = Array.from({ length: count }, () => {
                  clock += 10_000;
                  return sample(clock, [poolSample(h.tank), poolSample(h.backup)], arcSample({ hits: clock / 1000, misses: 1 }));
                });
                return ingestTelemetry(db, h.nodeId, samples);
              }),
            ).finally(() => (done = true));
            // the readers poll while the posts commit
            const polling = (async () => {
              do {
                await Promise.all(readers.map(poll));
              } while (!done);
            })();
            await Promise.all([posts, polling]);
          }
          await Promise.all(readers.map(poll));
          for (const r of readers) {
            const stored = async (table: 'pool_telemetry' | 'arc_telemetry', after: number) =>
              (await testDb().selectFrom(table).select('id').where('node_id', '=', r.host.nodeId).where('id', '>', after).orderBy('id').execute()).map((x) =>
                Number(x.id),
              );
            expect(r.resets).toBe(0);
            // every committed row once, in id order: none skipped by a cursor, none twice
            expect(r.poolIds).toEqual(await stored('pool_telemetry', heads.pool));
            expect(r.arcIds).toEqual(await stored('arc_telemetry', heads.arc));
          }
        },
      ),
      { numRuns: 8 },
    );
  } finally {
    await db.destroy();
  }
});
