/**
 * What the agent trusts (agent/service/README.md): the store via /api/agent/*, never a queue message's
 * body. Real agent process on the simulator, real queue (fauxqs, sent to with the real SQS client), real API.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import {
  getTaskRow,
  insertNode,
  probeTask,
  queueTask,
  stackQueue,
  startTestAgent,
  testHost,
  waitForTask,
  waitUntil,
  type TestAgent,
} from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { LOGIN_PATH } from '#simulator/profiles';
import { findSimJail } from '#simulator/commands/jail-model';
import { readFile } from '#simulator/file-tree';
import { nodeQueueUrl } from '#shared/queue/node-queue';
import { dispatchTask, sendTask } from '#shared/jobs/dispatch';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { freeGuestId } from '../http/jail-setup.ts';
import { freeRids } from '../http/vm-fixtures.ts';
import { DomainXml, attrsOf, find, is } from '#agent/drivers/domain-xml';

jest.setTimeout(120_000);

let sqs: SQSClient;
let agent: TestAgent;
let sim: HostSimulator;
let ctid: number;
let rid: number;
const sysctl = async (name: string) => (await sim.run(['sysctl', '-n', name])).stdout.trim();

beforeAll(async () => {
  const q = stackQueue();
  sqs = new SQSClient({ region: 'us-east-1', endpoint: q.queueEndpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  ctid = await freeGuestId();
  [rid] = await freeRids(1);
  const zvol = `zroot/vms/${rid}/disk0`;
  agent = await startTestAgent({
    host: testHost({
      sysctls: [
        { name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false },
        { name: 'kern.maxfiles', type: 'integer', value: '32768', writable: true },
      ],
      pools: [{ name: 'zroot', vdevs: [{ type: 'disk', name: 'ada0' }], allocatedBytes: 40 * 2 ** 30 }],
      datasets: [
        { name: 'zroot', type: 'filesystem', usedBytes: 40 * 2 ** 30, mountpoint: 'none' },
        { name: 'zroot/jails', type: 'filesystem', usedBytes: 2 ** 30, mountpoint: '/zroot/jails' },
        { name: 'zroot/jails/app', type: 'filesystem', usedBytes: 2 ** 20, mountpoint: '/zroot/jails/app' },
        { name: zvol, type: 'volume', usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 },
      ],
      jails: [{ ctid, name: 'app', dataset: 'zroot/jails/app', state: 'running' }],
      vms: [{ rid, name: 'poison', state: 'shut off', zvols: [zvol] }],
    }),
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath, path: LOGIN_PATH });
  await testDb().updateTable('nodes').set({ status: 'member' }).where('id', '=', agent.nodeId).execute();
  await waitUntil(
    'the jail and the VM in the store',
    async () => (await testDb().selectFrom('guests').select('id').where('id', 'in', [ctid, rid]).execute()).length === 2,
  );
}, 90_000);

afterAll(async () => {
  await agent?.stop();
  sqs?.destroy();
});

describe('a queue message is a pointer, not an order', () => {
  test('a forged message naming another kind and payload runs nothing of it: the task runs what the store holds', async () => {
    const t = await probeTask(agent.nodeId, { sysctls: ['kern.ostype'], dispatch: false });
    const forged = JSON.stringify({ taskId: t.id, kind: 'tunable.apply', payload: { name: 'kern.maxfiles', value: '4242' } });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: await nodeQueueUrl(agent.nodeId),
        MessageBody: forged,
        MessageGroupId: t.resource,
        MessageDeduplicationId: `forged-${t.id}`,
      }),
    );
    const done = await waitForTask(t.id, ['success', 'failed', 'interrupted']);
    expect(done).toMatchObject({ kind: 'host.probe', status: 'success', result: { values: { 'kern.ostype': 'FreeBSD' } } });
    expect(await sysctl('kern.maxfiles')).toBe('32768');
  });

  test('a message under another group id never runs a task beside a running one of its resource: it waits, then runs', async () => {
    const resource = `probe:trust-${ctid}`;
    const running = await probeTask(agent.nodeId, { resource, holdMs: 3000 });
    await waitUntil('the first task running', async () => (await getTaskRow(running.id)).status === 'running');
    const queued = await probeTask(agent.nodeId, { resource, dispatch: false });
    // the right pointer under a group id of the sender's choosing: the queue would hand it out at once
    const body = JSON.stringify({ taskId: queued.id });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: await nodeQueueUrl(agent.nodeId),
        MessageBody: body,
        MessageGroupId: 'forged-group',
        MessageDeduplicationId: `forged-group-${queued.id}`,
      }),
    );
    const first = await waitForTask(running.id, ['success', 'failed', 'interrupted']);
    const second = await waitForTask(queued.id, ['success', 'failed', 'interrupted']);
    expect([first.status, second.status]).toEqual(['success', 'success']);
    expect(second.attempts).toBe(1);
    expect(second.started_at!.getTime()).toBeGreaterThanOrEqual(first.finished_at!.getTime());
  });
});

describe('an older configuration task never overtakes a newer one of its resource', () => {
  test('out-of-order delivery (N+1, then N): N ends failed "superseded by task N+1", the host keeps N+1\'s value', async () => {
    const resource = 'tunable:kern.maxfiles';
    const older = await queueTask({
      kind: 'tunable.apply',
      nodeId: agent.nodeId,
      resource,
      payload: { name: 'kern.maxfiles', value: '50000' },
      dispatch: false,
    });
    const newer = await queueTask({
      kind: 'tunable.apply',
      nodeId: agent.nodeId,
      resource,
      payload: { name: 'kern.maxfiles', value: '60000' },
      dispatch: false,
    });
    await sendTask(newer, testDb());
    expect((await waitForTask(newer.id, ['success', 'failed'])).status).toBe('success');
    // the late re-send of the older one (the sweeper may also send it: either way it arrives after)
    await sendTask(await getTaskRow(older.id), testDb()).catch(() => undefined);
    const late = await waitForTask(older.id, ['success', 'failed', 'interrupted']);
    expect(late).toMatchObject({ status: 'failed', error: `superseded by task ${newer.id}`, attempts: 0 });
    expect(await sysctl('kern.maxfiles')).toBe('60000');
  });
});

describe('characters SQS refuses never travel in the queue', () => {
  const POISON: Array<[string, string]> = [
    ['U+FFFE', '\uFFFE'],
    ['U+FFFF', '\uFFFF'],
    ['an emoji', '\u{1F600}'],
    ['U+FFFD', '\uFFFD'],
  ];
  let operator: string;
  let admin: string;
  beforeAll(async () => {
    operator = await tokenFor('operator');
    admin = await tokenFor('admin');
  });
  const ended = async (res: { body: { data: { taskId: number } } }) => waitForTask(res.body.data.taskId, ['success', 'failed', 'interrupted']);

  test.each(POISON)('E3 hook script with %s reaches the host', async (_name, ch) => {
    const script = `echo pre ${ch}`;
    const res = await call('PUT', `/jail/${ctid}/options/lifecycle-hooks`, {
      token: operator,
      body: { hooks: { ...noHooks(), prestart: { enabled: true, script } } },
    });
    expectEnvelope(res, 200, 'jail_hooks_updated');
    expect(await ended(res)).toMatchObject({ status: 'success', error: '' });
    expect(await sim.state((s) => readFile(s, `/usr/local/etc/hostmgr/jails/${ctid}/hooks/prestart.sh`))).toContain(script);
    expect((await sim.state((s) => findSimJail(s, 'app')))!.state).toBe('running');
  });

  test.each(POISON)('E11 kern.hostname value with %s reaches the host', async (_name, ch) => {
    const value = `host${ch}.example.org`;
    const res = await call('PUT', `/system/tunables?nodeId=${agent.nodeId}`, { token: admin, body: { name: 'kern.hostname', value } });
    expectEnvelope(res, 200, 'tunable_set');
    expect(await ended(res)).toMatchObject({ status: 'success', error: '' });
    expect(await sysctl('kern.hostname')).toBe(value);
  });

  test.each(POISON)('E17 user data with %s reaches the host (or, not being YAML, is refused before anything is stored)', async (_name, ch) => {
    const texts = { data: `#cloud-config\nhostname: p${ch}\n`, metadata: `instance-id: vm-${rid}\n`, networkConfig: '' };
    const before = await testDb().selectFrom('tasks').select('id').where('resource', '=', `vm:${rid}`).execute();
    const res = await call('PUT', `/vm/${rid}/options/cloud-init`, { token: operator, body: texts });
    if (ch === '\uFFFE' || ch === '\uFFFF') {
      // YAML forbids these: a 400 with no task, so nothing can be stuck
      expectEnvelope(res, 400, 'validation_failed');
      expect((await testDb().selectFrom('tasks').select('id').where('resource', '=', `vm:${rid}`).execute()).length).toBe(before.length);
      return;
    }
    expectEnvelope(res, 200, 'vm_cloud_init_updated');
    expect(await ended(res)).toMatchObject({ status: 'success', error: '' });
    const iso = JSON.parse((await sim.state((s) => readFile(s, `/var/db/hostmgr/vms/${rid}/cloud-init.iso`)))!);
    expect(iso.files['user-data']).toBe(texts.data);
  });

  test.each(POISON)('E19 vncPassword with %s reaches the host', async (_name, ch) => {
    const password = `pw${ch}x`;
    const res = await call('PUT', `/vm/${rid}/hardware/vnc`, {
      token: operator,
      body: { vncEnabled: true, vncResolution: '1280x720', vncWait: false, vncPort: 5907, vncBind: '127.0.0.1', vncPassword: password },
    });
    expectEnvelope(res, 200, 'vm_vnc_updated');
    expect(await ended(res)).toMatchObject({ status: 'success', error: '' });
    const xml = DomainXml.parse((await sim.run(['virsh', 'dumpxml', '--security-info', String(rid)])).stdout);
    expect(attrsOf(find(xml.devices, is('graphics'))!).passwd).toBe(password);
  });
});

describe('a task that cannot be sent', () => {
  test('ends failed within the sweeper bound, with the send error, and notifies', async () => {
    // the queue endpoint is unreachable for this process's sends (nothing listens on the port): every send fails
    const nodeId = await insertNode(undefined, { status: 'member' });
    const t = await queueTask({ kind: 'host.probe', nodeId, resource: `probe:${nodeId}`, payload: { sysctls: [] }, dispatch: false });
    const real = process.env.HM_QUEUE_ENDPOINT;
    const { freePort } = await import('#scripts/stack/ports');
    process.env.HM_QUEUE_ENDPOINT = `http://127.0.0.1:${await freePort()}`;
    try {
      expect(await dispatchTask(t, testDb())).toBe(false);
      const { sweepTasks } = await import('#domain/task-transitions');
      for (let i = 0; i < 5 && (await getTaskRow(t.id)).status === 'queued'; i++) {
        await sweepTasks(testDb(), { nodeId, unsentAfterS: 0, maxSends: 3 });
      }
    } finally {
      process.env.HM_QUEUE_ENDPOINT = real;
    }
    const row = await getTaskRow(t.id);
    expect(row.status).toBe('failed');
    expect(row.dispatch_count).toBe(0);
    expect(row.send_attempts).toBeGreaterThanOrEqual(3);
    expect(row.error).toMatch(new RegExp(`^the task could not be sent to the queue of node ${nodeId} in \\d+ attempts; last error: \\S`));
    const n = await testDb().selectFrom('notifications').select(['kind', 'severity']).where('title', 'like', `Task ${t.id} %`).execute();
    expect(n).toEqual([{ kind: 'task_failed', severity: 'error' }]);
  });
});
