import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { insertNode } from '../helpers/agent.ts';
import { freeRids } from './vm-fixtures.ts';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import { sampleResultOf } from '../helpers/task-results.ts';

/**
 * Read-your-writes after a task: once a task ends `success`, the GETs show its new state — also when the agent's
 * next inventory report was collected before the change and arrives after the task ended (held back here, so no
 * timing luck is involved). Such a report says so with `asOf` (the newest task outcome the agent had seen
 * acknowledged when it began collecting); what changed after that keeps its persisted state, and a report
 * collected later is the truth again.
 */
let node: string;
let agent: string;
let operator: string;
let admin: string;
let rid: number;
const oldCloudInit = { data: '#cloud-config\nhostname: old\n', metadata: 'instance-id: old\n', networkConfig: '' };

const inventory = (opts: { cloudInit: typeof oldCloudInit; video: string[]; memoryBytes: number }) => ({
  hostname: 'ryw',
  os: 'FreeBSD 14.3-RELEASE',
  cpus: 4,
  memoryBytes: opts.memoryBytes,
  vms: [{ rid, domain: String(rid), name: 'ryw', state: 'shut off', options: { ...defaultVmOptions(), cloudInit: opts.cloudInit }, macs: [], datasets: [] }],
  users: [
    { name: 'alice', uid: 1001, gid: 1001 },
    { name: 'bob', uid: 1002, gid: 1002 },
  ],
  groups: [{ name: 'video', gid: 44, members: opts.video }],
});
const report = (inv: unknown, asOf?: string) => call('PUT', '/agent/inventory', { token: agent, body: { inventory: inv, ...(asOf ? { asOf } : {}) } });

/** The agent's side of a task: start it, report success; returns the task's finishedAt (the store's time). */
async function runToSuccess(taskId: number): Promise<string> {
  const started = await call('POST', `/agent/tasks/${taskId}/start`, { token: agent });
  expect(started.body.data.run).toBe(true);
  const done = await call('POST', `/agent/tasks/${taskId}/finish`, {
    token: agent,
    body: { attempt: started.body.data.attempt, status: 'success', result: await sampleResultOf(taskId) },
  });
  expectEnvelope(done, 200);
  return done.body.data.finishedAt;
}

beforeAll(async () => {
  [rid] = await freeRids(1);
  node = await insertNode(undefined, { status: 'member' });
  agent = await tokenFor('agent', node);
  operator = await tokenFor('operator');
  admin = await tokenFor('admin');
  expectEnvelope(await report(inventory({ cloudInit: oldCloudInit, video: ['alice', 'bob'], memoryBytes: 1 })), 200);
});

test('E17 clear: a report collected before the task ended does not bring the old cloud-init back; one collected after is the truth', async () => {
  const before = await call('GET', `/vm/${rid}`, { token: operator });
  expect(before.body.data.options.cloudInit).toMatchObject({ data: oldCloudInit.data });
  // what the agent had seen acknowledged when it began collecting: nothing later than now
  const { now } = await testDb()
    .selectNoFrom((eb) => eb.fn<Date>('now').as('now'))
    .executeTakeFirstOrThrow();
  const res = await call('PUT', `/vm/${rid}/options/cloud-init`, { token: operator, body: { data: '', metadata: '', networkConfig: '' } });
  expectEnvelope(res, 200);
  const finishedAt = await runToSuccess(res.body.data.taskId);

  // the held-back report: collected before the clear reached the host, arriving after its task ended
  expectEnvelope(await report(inventory({ cloudInit: oldCloudInit, video: ['alice', 'bob'], memoryBytes: 2 }), new Date(now).toISOString()), 200);
  const after = await call('GET', `/vm/${rid}`, { token: operator });
  expect(after.body.data.options.cloudInit).toMatchObject({ data: '', metadata: '' });

  // a report collected after the task's outcome describes the host as it is (here: someone put it back by hand)
  expectEnvelope(await report(inventory({ cloudInit: oldCloudInit, video: ['alice', 'bob'], memoryBytes: 3 }), finishedAt), 200);
  const later = await call('GET', `/vm/${rid}`, { token: operator });
  expect(later.body.data.options.cloudInit).toMatchObject({ data: oldCloudInit.data });
});

test('E1: members set by a successful task stay while a report collected before it arrives', async () => {
  const group = await testDb().selectFrom('host_groups').select('id').where('node_id', '=', node).where('name', '=', 'video').executeTakeFirstOrThrow();
  const { now } = await testDb()
    .selectNoFrom((eb) => eb.fn<Date>('now').as('now'))
    .executeTakeFirstOrThrow();
  expectEnvelope(await call('PUT', `/auth/groups/${group.id}/members`, { token: admin, body: { usernames: ['alice'] } }), 200);
  const task = await testDb().selectFrom('tasks').select('id').where('resource', '=', `group:${group.id}`).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const finishedAt = await runToSuccess(task.id);
  expectEnvelope(await report(inventory({ cloudInit: oldCloudInit, video: ['alice', 'bob'], memoryBytes: 4 }), new Date(now).toISOString()), 200);
  expect((await testDb().selectFrom('host_groups').select('members').where('id', '=', group.id).executeTakeFirstOrThrow()).members).toEqual(['alice']);
  expectEnvelope(await report(inventory({ cloudInit: oldCloudInit, video: ['alice'], memoryBytes: 5 }), finishedAt), 200);
  expect((await testDb().selectFrom('host_groups').select('members').where('id', '=', group.id).executeTakeFirstOrThrow()).members).toEqual(['alice']);
});

test('asOf is a timestamp: anything else is 400 naming it', async () => {
  for (const asOf of ['yesterday', '2308-67-92T89:01:06Z']) {
    const res = await report(inventory({ cloudInit: oldCloudInit, video: ['alice'], memoryBytes: 6 }), asOf);
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.asOf');
  }
});
