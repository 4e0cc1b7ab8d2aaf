import { sql } from 'kysely';
import { AgentApi } from '#agent/runtime/api';
import { AgentClient } from '#agent/runtime/client';
import { createTelemetryLoop } from '#agent/runtime/telemetry-loop';
import type { TelemetrySample } from '#domain/telemetry/sample';
import { streamHeads } from '#domain/telemetry/cursors';
import { apiUrl, call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { getTaskRow, insertNode, probeTask } from '../helpers/agent.ts';
import { sweepTasks } from '#domain/task-transitions';
import { arcSample, createHost, poolSample, sample } from './zfs-fixtures.ts';

/**
 * The agent's telemetry cadence against the real ingest and E14: samples every 10 s, posted in batches (one
 * post a minute) while nobody reads the node, each as taken while an E14 client or the console does; the
 * batches are stored as one row per sample, and E14 answers the same either way. The loop runs on a clock the
 * test drives (10 s a tick), so nothing here depends on the machine's speed.
 */

const quiet = () => undefined;
const TICK_MS = 10_000;

async function host() {
  const h = await createHost();
  const token = await tokenFor('agent', h.nodeId);
  const viewer = await tokenFor('viewer');
  return { ...h, token, viewer };
}

/** A telemetry loop of `h`'s agent: its samples are 10 s apart on the test's clock; its posts are counted. */
function agentLoop(h: Awaited<ReturnType<typeof host>>, start: number) {
  let clock = start;
  let n = 0;
  const posts: TelemetrySample[][] = [];
  const client = new AgentClient(new AgentApi(apiUrl(), h.token, quiet));
  const loop = createTelemetryLoop({
    exec: { kind: 'simulator', run: async () => ({ code: 1, stdout: '', stderr: 'unused' }) },
    api: {
      telemetry: (samples, retry) => {
        posts.push(samples);
        return client.telemetry(samples, retry);
      },
    },
    log: quiet,
    intervalSeconds: 10,
    batchSeconds: 60,
    now: () => clock,
    collect: async () => sample(clock, [poolSample(h.tank, { writeIOPS: ++n })], arcSample({ hits: 10 * n, misses: n })),
  });
  return {
    loop,
    posts,
    async ticks(count: number) {
      for (let i = 0; i < count; i++) {
        await loop.tick();
        clock += TICK_MS;
      }
    },
  };
}

const delta = (h: Awaited<ReturnType<typeof host>>, after: { pool: number; arc: number }) =>
  call('GET', `/zfs/dashboard/history/delta?poolAfter=${after.pool}&arcAfter=${after.arc}&nodeId=${h.nodeId}`, { token: h.viewer });

const rowsOf = (nodeId: string) =>
  testDb()
    .selectFrom('pool_telemetry')
    .select(['id', sql<number>`(extract(epoch from time) * 1000)::bigint`.as('ms'), 'write_iops'])
    .where('node_id', '=', nodeId)
    .orderBy('id')
    .execute();

describe('telemetry cadence: batches while nobody watches, every sample while someone does', () => {
  test('unwatched: one post per minute carries six 10 s samples; each is stored as its own row; E14 answers them in order', async () => {
    const h = await host();
    const before = await streamHeads(testDb());
    const start = Date.now() - 3_600_000;
    const a = agentLoop(h, start);
    await a.ticks(13);
    // the first sample goes at once (the agent learns whether it is watched), then one batch a minute
    expect(a.posts.map((p) => p.length)).toEqual([1, 6, 6]);
    expect(a.loop.state.watched).toBe(false);
    expect(a.loop.pending).toHaveLength(0);
    const rows = await rowsOf(h.nodeId);
    expect(rows.map((r) => Number(r.ms) - start)).toEqual(Array.from({ length: 13 }, (_, i) => i * TICK_MS));
    expect(rows.map((r) => r.write_iops)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));

    const res = await delta(h, before);
    expectEnvelope(res, 200);
    const points = res.body.data.pools[0].points;
    expect(points.map((p: { time: number }) => p.time - start)).toEqual(Array.from({ length: 13 }, (_, i) => i * TICK_MS));
    expect(points.map((p: { id: number }) => p.id)).toEqual([...points.map((p: { id: number }) => p.id)].sort((x: number, y: number) => x - y));
    expect(res.body.data.resolutionSeconds).toBe(10);
    // one ARC row per interval after the first sample (counter deltas)
    expect(res.body.data.arc).toHaveLength(12);
  });

  test('a batch retried (its answer lost) is stored once; a retry overlapping new samples stores only the new', async () => {
    const h = await host();
    const t = Date.now() - 600_000;
    const batch = Array.from({ length: 6 }, (_, i) => sample(t + i * TICK_MS, [poolSample(h.tank, { writeIOPS: i })], arcSample({ hits: i, misses: 0 })));
    const post = (samples: TelemetrySample[]) => call('POST', '/agent/telemetry', { token: h.token, body: { samples } });
    expect((await post(batch)).body.data).toMatchObject({ pools: 6, arc: 5, skipped: 0 });
    expect((await post(batch)).body.data).toMatchObject({ pools: 0, arc: 0, skipped: 6 });
    const next = sample(t + 6 * TICK_MS, [poolSample(h.tank, { writeIOPS: 6 })], arcSample({ hits: 6, misses: 0 }));
    expect((await post([...batch.slice(3), next])).body.data).toMatchObject({ pools: 1, arc: 1, skipped: 3 });
    const rows = await rowsOf(h.nodeId);
    expect(rows.map((r) => r.write_iops)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test('an E14 read marks the node watched: the agent then posts every sample; when the mark lapses it batches again', async () => {
    const h = await host();
    const before = await streamHeads(testDb());
    const a = agentLoop(h, Date.now() - 3_600_000);
    await a.ticks(1);
    expect(a.loop.state.watched).toBe(false);

    // a console (or any E14 client) polls this node
    expectEnvelope(await delta(h, before), 200);
    const node = await testDb().selectFrom('nodes').select('telemetry_watched_until').where('id', '=', h.nodeId).executeTakeFirstOrThrow();
    expect(node.telemetry_watched_until).not.toBeNull();

    // the agent learns it with its next post (the batch's), then posts each sample as taken
    await a.ticks(6);
    expect(a.loop.state.watched).toBe(true);
    const sentBefore = a.posts.length;
    await a.ticks(4);
    expect(a.posts.slice(sentBefore).map((p) => p.length)).toEqual([1, 1, 1, 1]);
    const seen = await delta(h, before);
    expect(seen.body.data.pools[0].points).toHaveLength(11);

    // nobody reads any more: the mark lapses; the next answer says so and the agent batches again
    await testDb().updateTable('nodes').set({ telemetry_watched_until: sql<Date>`now() - interval '1 second'` }).where('id', '=', h.nodeId).execute();
    await a.ticks(1);
    expect(a.loop.state.watched).toBe(false);
    const sentThen = a.posts.length;
    await a.ticks(6);
    expect(a.posts.slice(sentThen).map((p) => p.length)).toEqual([6]);
  });

  test("the console's history read (opening the charts) marks the node watched too", async () => {
    const h = await host();
    const to = Date.now();
    const res = await call('GET', `/zfs/dashboard/history?nodeId=${h.nodeId}&from=${to - 3_600_000}&to=${to}`, { token: h.viewer });
    expectEnvelope(res, 200);
    const post = await call('POST', '/agent/telemetry', { token: h.token, body: { samples: [sample(to - 1000, [poolSample(h.tank)])] } });
    expect(post.body.data.watched).toBe(true);
  });
});

describe('liveness at the batch cadence', () => {
  const online = async (id: string) => {
    const res = await call('GET', `/cluster/nodes/${id}`, { token: await tokenFor('viewer') });
    expectEnvelope(res, 200);
    return res.body.data.online as boolean;
  };

  test('a node registered with a 60 s interval stays online 180 s without a word, then is offline; a telemetry post alone brings it back', async () => {
    const quietFor = (s: number) => insertNode(undefined, { status: 'member', heartbeatIntervalS: 60, lastSeenAt: new Date(Date.now() - s * 1000) });
    expect(await online(await quietFor(170))).toBe(true);
    const silent = await quietFor(200);
    expect(await online(silent)).toBe(false);
    const token = await tokenFor('agent', silent);
    const res = await call('POST', '/agent/telemetry', { token, body: { samples: [sample(Date.now() - 1000, [])] } });
    expectEnvelope(res, 200, 'telemetry_stored');
    expect(await online(silent)).toBe(true);
  });

  test("the sweeper interrupts a running task only after three of the node's (60 s) intervals without a word", async () => {
    const silentFor = async (s: number) => {
      const nodeId = await insertNode(undefined, { status: 'member', heartbeatIntervalS: 60, lastSeenAt: new Date(Date.now() - s * 1000) });
      const task = await probeTask(nodeId, { dispatch: false });
      await testDb()
        .updateTable('tasks')
        .set({ status: 'running', updated_at: new Date(Date.now() - s * 1000) })
        .where('id', '=', task.id)
        .execute();
      return { nodeId, taskId: task.id };
    };
    // a minute between batches, and more, is within the bound: nothing is cut off
    const batching = await silentFor(100);
    expect((await sweepTasks(testDb(), { nodeId: batching.nodeId })).interrupted).toEqual([]);
    expect((await getTaskRow(batching.taskId)).status).toBe('running');
    const gone = await silentFor(200);
    expect((await sweepTasks(testDb(), { nodeId: gone.nodeId })).interrupted).toEqual([gone.taskId]);
    expect((await getTaskRow(gone.taskId)).status).toBe('interrupted');
  });

  test('the agent registers its heartbeat interval (60 s by default), which sets the offline bound', async () => {
    const { parseConfig } = await import('#agent/runtime/config');
    const base = ['--api-url', 'http://127.0.0.1:1/api', '--token', 'hm_x', '--node-id', '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01'];
    const cfg = parseConfig(base, {}, () => '')!;
    expect(cfg.heartbeatIntervalS).toBe(60);
    expect(cfg.telemetryIntervalS).toBe(10);
    expect(cfg.telemetryBatchIntervalS).toBe(60);
    expect(parseConfig(base, { HM_TELEMETRY_BATCH_INTERVAL: '5' }, () => '')!.telemetryBatchIntervalS).toBe(5);
  });
});
