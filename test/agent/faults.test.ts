/**
 * The agent under faults: real agent processes on the simulator, real queue (fauxqs),
 * real API (serverless-offline). Each test asserts that nothing is lost: every task ends in a final state with
 * its outcome, exactly one run, and its message gone from the queue.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sql } from 'kysely';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call, testDb, tokenFor, uid } from '../helpers/api.ts';
import { getTaskRow, probeTask, stackQueue, startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { nodeQueueUrl } from '#shared/queue/node-queue';
import { sendTask } from '#shared/jobs/dispatch';
import { startProxy } from './proxy.ts';
import { HostSimulator } from '#simulator/simulator';

jest.setTimeout(90_000);

/** log lines of this agent process (a restarted agent appends to the same file) about a task */
const linesOf = (agent: TestAgent, msg: string, taskId: number) =>
  agent
    .log()
    .split('\n')
    .filter((l) => l.includes(`"pid":${agent.proc.pid}`) && l.includes(`"msg":"${msg}"`) && l.includes(`"taskId":${taskId},`)).length;
const startsOf = (agent: TestAgent, taskId: number) => linesOf(agent, 'task started', taskId);
const skipsOf = (agent: TestAgent, taskId: number) => linesOf(agent, 'task not run: already handled', taskId);
const running = (id: number) =>
  waitUntil(`task ${id} to run`, async () => {
    const t = await getTaskRow(id);
    return t.status === 'running' && t.progress > 0 ? t : null;
  });

let sqs: SQSClient;
beforeAll(() => {
  const q = stackQueue();
  sqs = new SQSClient({ region: 'us-east-1', endpoint: q.queueEndpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
afterAll(() => sqs.destroy());

describe('agent: the normal path', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent({ host: undefined });
    await agent.ready();
  });
  afterAll(() => agent.stop());

  test('registers its node (pending, online) with the inventory of its host', async () => {
    const node = await call('GET', `/cluster/nodes/${agent.nodeId}`, { token: await tokenFor('viewer') });
    expect(node.body.data).toMatchObject({ id: agent.nodeId, status: 'pending', online: true, heartbeatIntervalS: 1 });
    expect(node.body.data.inventory).toMatchObject({ cpus: 4 });
  });

  test('runs a task end to end: progress, output, result', async () => {
    const t = await probeTask(agent.nodeId, { holdMs: 300 });
    const done = await waitForTask(t.id, ['success', 'failed', 'interrupted']);
    const hostname = JSON.parse((await import('node:fs')).readFileSync(agent.statePath, 'utf8')).hostname;
    expect(done).toMatchObject({ status: 'success', progress: 100, attempts: 1, error: '', result: { values: { 'kern.hostname': hostname, 'hw.ncpu': '4' } } });
    expect(done.output).toContain(`kern.hostname: ${hostname}`);
  });

  test("a failing command fails the task with the command's own message, and notifies", async () => {
    const t = await probeTask(agent.nodeId, { sysctls: ['kern.no_such_oid'] });
    const done = await waitForTask(t.id, ['success', 'failed', 'interrupted']);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/unknown oid 'kern\.no_such_oid'/);
    const n = await testDb().selectFrom('notifications').select(['kind', 'severity']).where('title', 'like', `Task ${t.id} %`).execute();
    expect(n).toEqual([{ kind: 'task_failed', severity: 'error' }]);
  });

  test('a kind the agent has no handler for fails the task with a clear error', async () => {
    const row = await testDb()
      .insertInto('tasks')
      .values({ kind: 'no.such-kind', node_id: agent.nodeId, resource: `x:${uid()}`, payload: '{}', requested_by: 'test' })
      .returningAll()
      .executeTakeFirstOrThrow();
    await sendTask(row, testDb());
    const done = await waitForTask(row.id, ['success', 'failed', 'interrupted']);
    expect(done).toMatchObject({ status: 'failed', error: 'unknown task kind "no.such-kind": this agent has no handler for it (update the agent)' });
  });

  test('tasks of one resource run one at a time; other resources run alongside', async () => {
    const resource = `probe:${uid()}`;
    const a = await probeTask(agent.nodeId, { resource, holdMs: 1200 });
    const b = await probeTask(agent.nodeId, { resource, holdMs: 1200 });
    const c = await probeTask(agent.nodeId, { holdMs: 1200 });
    const [ra, rb, rc] = await Promise.all([a, b, c].map((t) => waitForTask(t.id, ['success'])));
    expect(rb.started_at!.getTime()).toBeGreaterThanOrEqual(ra.finished_at!.getTime());
    // the other resource overlapped with the first
    expect(rc.started_at!.getTime()).toBeLessThan(ra.finished_at!.getTime());
  });

  test('a change on the host is reported as inventory after the next task', async () => {
    await new HostSimulator({ statePath: agent.statePath }).state((h) => void h.disks.push({ name: 'ada7', sizeBytes: 512 * 1000 ** 3 }));
    const t = await probeTask(agent.nodeId);
    await waitForTask(t.id, ['success']);
    const inv = await waitUntil(
      'the new disk in the node inventory',
      async () => {
        const row = await testDb().selectFrom('nodes').select(['inventory', 'inventory_at']).where('id', '=', agent.nodeId).executeTakeFirstOrThrow();
        return (row.inventory as { disks?: string[] }).disks?.includes('ada7') ? row : null;
      },
      10_000,
    );
    expect((inv.inventory as { disks: string[] }).disks).toEqual(expect.arrayContaining(['ada0', 'ada7']));
  });

  test('a task longer than the visibility timeout keeps its message (extended) and runs once', async () => {
    const t = await probeTask(agent.nodeId, { holdMs: 8000 }); // visibility 6 s in tests
    const done = await waitForTask(t.id, ['success', 'failed', 'interrupted'], 30_000);
    expect(done).toMatchObject({ status: 'success', attempts: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(startsOf(agent, t.id)).toBe(1);
    expect(skipsOf(agent, t.id)).toBe(0);
  });
});

describe('agent: re-application of persisted configuration at start', () => {
  test('a persisted tunable is applied again, as a task, before the agent takes other work', async () => {
    const base = testHost();
    const host = { ...base, sysctls: [...base.sysctls, { name: 'kern.test_knob', type: 'integer' as const, value: '1', writable: true }] };
    const agent = await startTestAgent({ host });
    await agent.ready();
    await agent.stop();
    // the operator's setting (E11) is persisted; the host lost it (e.g. a reboot)
    await testDb()
      .insertInto('tunable_settings')
      .values({ node_id: agent.nodeId, name: 'kern.test_knob', value: '7', type: 'integer', previous_value: '1', task_id: null, requested_by: 'test' })
      .execute();
    const again = await agent.restart();
    await again.ready();
    const tasks = await testDb().selectFrom('tasks').selectAll().where('node_id', '=', agent.nodeId).where('kind', '=', 'tunable.apply').execute();
    expect(tasks).toHaveLength(1);
    // ready = consuming, which comes after the re-application ran
    expect(tasks[0]).toMatchObject({ status: 'success', requested_by: 'agent-start', resource: 'tunable:kern.test_knob', attempts: 1 });
    const value = await new HostSimulator({ statePath: agent.statePath }).state((h) => h.sysctls.find((x) => x.name === 'kern.test_knob')?.value);
    expect(value).toBe('7');
    await again.stop();
  });
});

describe('agent: faults', () => {
  test('a message delivered twice runs once (also when the copy arrives while the task runs)', async () => {
    const agent = await startTestAgent();
    await agent.ready();
    const t = await probeTask(agent.nodeId, { holdMs: 1500 });
    const url = await nodeQueueUrl(agent.nodeId);
    const body = JSON.stringify({ taskId: t.id, kind: t.kind, payload: t.payload });
    // a copy in another message group is deliverable while the first is in flight; a later copy in the same group after it
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: `dup-${uid()}`, MessageDeduplicationId: `${t.id}-copy1` }));
    const done = await waitForTask(t.id, ['success', 'failed', 'interrupted']);
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageGroupId: t.resource, MessageDeduplicationId: `${t.id}-copy2` }));
    await waitUntil('the late copy to be acked', async () => skipsOf(agent, t.id) >= 1);
    expect(done).toMatchObject({ status: 'success', attempts: 1 });
    expect(startsOf(agent, t.id)).toBe(1);
    expect((await getTaskRow(t.id)).attempts).toBe(1);
    // the queue is clean: the next task of the same resource runs at once
    const next = await probeTask(agent.nodeId, { resource: t.resource });
    await waitForTask(next.id, ['success'], 10_000);
    await agent.stop();
  });

  test('agent killed mid-task: the task ends interrupted at the next start (never stuck running), not run twice', async () => {
    const agent = await startTestAgent();
    await agent.ready();
    const t = await probeTask(agent.nodeId, { holdMs: 20_000 });
    await running(t.id);
    await agent.kill();
    expect((await getTaskRow(t.id)).status).toBe('running');
    const again = await agent.restart();
    await again.ready();
    const after = await waitForTask(t.id, ['interrupted', 'success', 'failed']);
    expect(after).toMatchObject({ status: 'interrupted', attempts: 1 });
    expect(after.error).toMatch(/interrupted/);
    const n = await testDb().selectFrom('notifications').select('kind').where('title', 'like', `Task ${t.id} %`).execute();
    expect(n).toEqual([{ kind: 'task_interrupted' }]);
    // the old message comes back after its visibility lapses and is acked without running
    await waitUntil('the redelivered message to be acked', async () => skipsOf(again, t.id) >= 1, 20_000);
    expect(startsOf(again, t.id)).toBe(0);
    // and its resource is not blocked
    const next = await probeTask(again.nodeId, { resource: t.resource });
    await waitForTask(next.id, ['success'], 15_000);
    await again.stop();
  });

  test('the report endpoint down for a while: the agent retries and the result lands', async () => {
    const proxy = await startProxy(process.env.HM_TEST_API!);
    const agent = await startTestAgent({ apiUrl: proxy.url });
    try {
      await agent.ready();
      const t = await probeTask(agent.nodeId, { holdMs: 1500 });
      await running(t.id);
      await proxy.down();
      // the task ends during the outage; its report cannot land
      await waitUntil(
        'the agent to try to report',
        async () => agent.log().includes('"msg":"task ended"') && agent.log().includes(`"taskId":${t.id},`),
        10_000,
      );
      await new Promise((r) => setTimeout(r, 3000));
      expect(['running', 'interrupted']).toContain((await getTaskRow(t.id)).status);
      await proxy.up();
      const done = await waitForTask(t.id, ['success', 'failed'], 30_000);
      expect(done).toMatchObject({ status: 'success', attempts: 1 });
      expect(done.result).toMatchObject({ values: { 'hw.ncpu': '4' } });
      // the agent drops its spooled copy once the answer to the report reaches it, just after the row changed
      await waitUntil('the spooled result to be dropped', async () => readdirSync(join(agent.stateDir, 'pending-results')).length === 0, 10_000);
    } finally {
      await agent.stop();
      await proxy.close();
    }
  });

  test('the report endpoint down and the agent killed meanwhile: the spooled result lands after restart', async () => {
    const proxy = await startProxy(process.env.HM_TEST_API!);
    const agent = await startTestAgent({ apiUrl: proxy.url });
    try {
      await agent.ready();
      const t = await probeTask(agent.nodeId, { holdMs: 1000 });
      await running(t.id);
      await proxy.down();
      const spooled = join(agent.stateDir, 'pending-results', `task-${t.id}.json`);
      await waitUntil('the outcome to be spooled', async () => existsSync(spooled), 10_000);
      await agent.kill();
      await proxy.up();
      const again = await agent.restart();
      await again.ready();
      const done = await waitForTask(t.id, ['success', 'failed'], 20_000);
      expect(done).toMatchObject({ status: 'success', attempts: 1 });
      expect(existsSync(spooled)).toBe(false);
      await again.stop();
    } finally {
      await proxy.close();
    }
  });

  test('agent stopped while tasks are queued: they wait, and run when it returns', async () => {
    const agent = await startTestAgent();
    await agent.ready();
    expect(await agent.stop()).toBe(0);
    const tasks = await Promise.all([0, 1, 2].map(() => probeTask(agent.nodeId)));
    await new Promise((r) => setTimeout(r, 2000));
    for (const t of tasks) expect((await getTaskRow(t.id)).status).toBe('queued');
    const again = await agent.restart();
    const done = await Promise.all(tasks.map((t) => waitForTask(t.id, ['success', 'failed', 'interrupted'])));
    for (const d of done) expect(d).toMatchObject({ status: 'success', attempts: 1 });
    await again.stop();
  });

  test('SIGTERM drains: the running task finishes, the agent exits 0', async () => {
    const agent = await startTestAgent();
    await agent.ready();
    const t = await probeTask(agent.nodeId, { holdMs: 2500 });
    await running(t.id);
    const code = await agent.stop(20_000);
    expect(code).toBe(0);
    const row = await getTaskRow(t.id);
    expect(row).toMatchObject({ status: 'success', attempts: 1 });
  });

  test('a node whose agent stops reporting shows offline after three heartbeats', async () => {
    const agent = await startTestAgent({ heartbeatS: 1 });
    await agent.ready();
    const viewer = await tokenFor('viewer');
    const read = async () => {
      const res = await call('GET', `/cluster/nodes/${agent.nodeId}`, { token: viewer });
      if (res.status !== 200) throw new Error(`node read: ${res.status} ${res.text}`);
      return res.body.data;
    };
    expect((await read()).online).toBe(true);
    // still online across a few heartbeats
    await new Promise((r) => setTimeout(r, 3500));
    expect((await read()).online).toBe(true);
    await agent.kill();
    await waitUntil('the node to show offline', async () => !(await read()).online, 10_000);
    // offline by the rule: its last heartbeat is more than three intervals old on the store's clock
    const seen = await testDb()
      .selectFrom('nodes')
      .select(sql<number>`extract(epoch from now() - last_seen_at)`.as('age'))
      .where('id', '=', agent.nodeId)
      .executeTakeFirstOrThrow();
    expect(Number(seen.age)).toBeGreaterThan(3);
    const list = await call('GET', '/cluster/nodes?online=false&size=100', { token: viewer });
    expect(list.body.data.data.map((n: { id: string }) => n.id)).toContain(agent.nodeId);
  });
});
