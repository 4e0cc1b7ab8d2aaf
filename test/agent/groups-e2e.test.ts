import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';

/**
 * E1 and E2 end to end: HTTP → store + task → queue → agent process → simulated FreeBSD host (`pw`) →
 * task result → inventory → store.
 */
let agent: TestAgent;
let sim: HostSimulator;
let ids: Record<string, number>;

const admin = () => tokenFor('admin');
const hostMembers = (group: string) => sim.state((s) => s.groups?.find((g) => g.name === group)?.members);
const storeGroup = (id: number) => testDb().selectFrom('host_groups').selectAll().where('id', '=', id).executeTakeFirst();

beforeAll(async () => {
  agent = await startTestAgent({
    host: testHost({
      users: [
        { name: 'root', uid: 0, gid: 0, gecos: 'Charlie &', home: '/root', shell: '/bin/csh' },
        { name: 'alice', uid: 1001, gid: 1001 },
        { name: 'bob', uid: 1002, gid: 1002 },
        { name: 'carol', uid: 1003, gid: 1003 },
        { name: 'dave', uid: 1004, gid: 1004 },
      ],
      groups: [
        { name: 'wheel', gid: 0, members: ['root'] },
        { name: 'video', gid: 44, members: ['alice', 'bob'] },
        { name: 'audio', gid: 45, members: ['bob'] },
        { name: 'games', gid: 13, members: ['carol'] },
        { name: 'alice', gid: 1001, members: [] },
      ],
    }),
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
  const rows = await waitUntil('the host groups in the store', async () => {
    const r = await testDb().selectFrom('host_groups').select(['id', 'name']).where('node_id', '=', agent.nodeId).execute();
    return r.length === 5 ? r : null;
  });
  ids = Object.fromEntries(rows.map((r) => [r.name, r.id]));
}, 60_000);

test('the inventory brings the host’s users (with primary groups) and groups into the store', async () => {
  const users = await testDb().selectFrom('host_users').select(['name', 'uid', 'gid']).where('node_id', '=', agent.nodeId).orderBy('uid').execute();
  expect(users).toEqual([
    { name: 'root', uid: 0, gid: 0 },
    { name: 'alice', uid: 1001, gid: 1001 },
    { name: 'bob', uid: 1002, gid: 1002 },
    { name: 'carol', uid: 1003, gid: 1003 },
    { name: 'dave', uid: 1004, gid: 1004 },
  ]);
  expect(await storeGroup(ids.video)).toMatchObject({ name: 'video', gid: 44, members: ['alice', 'bob'] });
});

test('E1: pw groupmod applies the new members on the host; the store follows the host', async () => {
  const res = await call('PUT', `/auth/groups/${ids.video}/members`, { body: { usernames: ['bob', 'carol', 'dave'] }, token: await admin() });
  expectEnvelope(res, 200, 'group_members_updated');
  expect(res.body.data).toEqual({ id: ids.video, name: 'video' });
  const [task] = await testDb().selectFrom('tasks').selectAll().where('resource', '=', `group:${ids.video}`).execute();
  const done = await waitForTask(task.id, ['success', 'failed']);
  expect(done.status).toBe('success');
  expect(done.result).toEqual({ group: 'video', members: ['bob', 'carol', 'dave'], added: ['carol', 'dave'], removed: ['alice'] });
  expect(await hostMembers('video')).toEqual(['bob', 'carol', 'dave']);
  expect((await sim.run(['pw', 'groupshow', 'video'])).stdout).toBe('video:*:44:bob,carol,dave\n');
  await waitUntil('the store to show the host’s members', async () => JSON.stringify((await storeGroup(ids.video))?.members) === '["bob","carol","dave"]');
});

test('E1 rollback: a pw step failing in the middle leaves the host as it was and the task failed', async () => {
  // the host lost user dave after its last report: the store still knows him
  expect((await sim.run(['pw', 'userdel', 'dave'])).code).toBe(0);
  const before = await hostMembers('audio');
  const res = await call('PUT', `/auth/groups/${ids.audio}/members`, { body: { usernames: ['alice', 'dave', 'carol'] }, token: await admin() });
  expectEnvelope(res, 200);
  const task = await testDb().selectFrom('tasks').selectAll().where('resource', '=', `group:${ids.audio}`).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const done = await waitForTask(task.id, ['success', 'failed']);
  expect(done.status).toBe('failed');
  // steps: -d bob, -m alice, -m dave (fails) → undone: -d alice, -m bob
  expect(done.error).toContain("pw: user `dave' does not exist (rolled back: -d alice, -m bob)");
  expect(await hostMembers('audio')).toEqual(before);
  await waitUntil('the store back on the host’s members', async () => JSON.stringify((await storeGroup(ids.audio))?.members) === JSON.stringify(before));
  await waitUntil(
    'dave gone from the store',
    async () => !(await testDb().selectFrom('host_users').select('name').where('node_id', '=', agent.nodeId).where('name', '=', 'dave').executeTakeFirst()),
  );
  const note = await testDb().selectFrom('notifications').selectAll().where('title', 'like', `Task ${done.id} %`).executeTakeFirst();
  expect(note).toMatchObject({ kind: 'task_failed' });
});

test('E2: pw groupdel removes the group from the host; the store drops it; a second delete is 404', async () => {
  const res = await call('DELETE', `/auth/groups/${ids.games}`, { token: await admin() });
  expectEnvelope(res, 200, 'group_deleted');
  expect(res.body.data).toEqual({ id: ids.games, name: 'games' });
  const task = await testDb().selectFrom('tasks').selectAll().where('resource', '=', `group:${ids.games}`).orderBy('id', 'desc').executeTakeFirstOrThrow();
  expect((await waitForTask(task.id, ['success', 'failed'])).status).toBe('success');
  expect(await sim.state((s) => s.groups?.some((g) => g.name === 'games'))).toBe(false);
  expect((await sim.run(['pw', 'groupshow', 'games'])).code).toBe(65);
  await waitUntil('the group gone from the store', async () => (await storeGroup(ids.games)) === undefined);
  expectEnvelope(await call('DELETE', `/auth/groups/${ids.games}`, { token: await admin() }), 404, 'group_not_found');
});

test('E2 refused by the host: the task fails with pw’s message; the store follows the host’s next report', async () => {
  // the host lost the group after its last report: the store still lists it
  expect((await sim.run(['pw', 'groupdel', 'audio'])).code).toBe(0);
  const res = await call('DELETE', `/auth/groups/${ids.audio}`, { token: await admin() });
  expectEnvelope(res, 200);
  const task = await testDb().selectFrom('tasks').selectAll().where('resource', '=', `group:${ids.audio}`).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const done = await waitForTask(task.id, ['success', 'failed']);
  expect(done.status).toBe('failed');
  expect(done.error).toBe("pw: unknown group `audio'");
  // the next report no longer lists it: the store drops it
  await waitUntil('the group gone from the store', async () => (await storeGroup(ids.audio)) === undefined);
});

afterAll(async () => {
  await agent?.stop();
});
