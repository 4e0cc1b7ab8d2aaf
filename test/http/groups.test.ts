import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { createGroupHost, groupRow, groupTasks } from './groups-fixtures.ts';

const admin = () => tokenFor('admin');
const putMembers = async (id: number | string, body: unknown, token?: string | null) =>
  call('PUT', `/auth/groups/${id}/members`, { body, token: token === undefined ? await admin() : token });
const del = async (id: number | string, token?: string | null) => call('DELETE', `/auth/groups/${id}`, { token: token === undefined ? await admin() : token });

let ids: Record<string, number>;
let nodeId: string;
beforeAll(async () => {
  ({ nodeId, ids } = await createGroupHost());
});

/** Asserts an error left the group's members and tasks as they were. */
async function unchanged(id: number, run: () => Promise<void>) {
  const before = await groupRow(id);
  const tasks = (await groupTasks(id)).length;
  await run();
  expect((await groupRow(id))?.members).toEqual(before?.members);
  expect(await groupTasks(id)).toHaveLength(tasks);
}

describe('E1 PUT /auth/groups/{groupId}/members', () => {
  test('200 {id, name}; the trimmed list is persisted and a group.set-members task carries it', async () => {
    const res = await putMembers(ids.staff, { usernames: [' bob ', 'alice'] });
    expectEnvelope(res, 200, 'group_members_updated');
    expect(res.body.data).toEqual({ id: ids.staff, name: 'staff' });
    expect((await groupRow(ids.staff))!.members).toEqual(['bob', 'alice']);
    const [task] = await groupTasks(ids.staff);
    expect(task).toMatchObject({ kind: 'group.set-members', node_id: nodeId, status: 'queued', requested_by: expect.any(String) });
    expect(task.payload).toEqual({ group: 'staff', members: ['bob', 'alice'] });
  });

  test('an empty list removes every supplementary member', async () => {
    const res = await putMembers(ids.video, { usernames: [] });
    expectEnvelope(res, 200);
    expect((await groupRow(ids.video))!.members).toEqual([]);
    expect((await groupTasks(ids.video)).at(-1)!.payload).toEqual({ group: 'video', members: [] });
  });

  test('wheel may change as long as root stays; developers may gain members while carol (primary) stays', async () => {
    expectEnvelope(await putMembers(ids.wheel, { usernames: ['root', 'alice'] }), 200);
    expectEnvelope(await putMembers(ids.developers, { usernames: ['carol', 'bob'] }), 200);
    expect((await groupRow(ids.developers))!.members).toEqual(['carol', 'bob']);
  });

  test('400 naming blank and repeated usernames (after trimming); nothing persisted', async () => {
    await unchanged(ids.audio, async () => {
      const res = await putMembers(ids.audio, { usernames: ['alice', '   ', ' alice', ''] });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toContain('body.usernames[1]: must not be blank');
      expect(res.body.error).toContain('body.usernames[2]: repeats body.usernames[0] ("alice")');
      expect(res.body.error).toContain('body.usernames[3]: must not be blank');
    });
  });

  test('400 for wrong types, missing or extra fields, too long names, malformed JSON', async () => {
    await unchanged(ids.audio, async () => {
      let res = await putMembers(ids.audio, {});
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toContain('body.usernames: is required');
      res = await putMembers(ids.audio, { usernames: 'alice' });
      expectEnvelope(res, 400);
      expect(res.body.error).toContain('body.usernames: must be array');
      res = await putMembers(ids.audio, { usernames: ['alice', 7, null] });
      expectEnvelope(res, 400);
      expect(res.body.error).toMatch(/body\.usernames.1.*must be string/);
      expect(res.body.error).toMatch(/body\.usernames.2.*must be string/);
      res = await putMembers(ids.audio, { usernames: [], extra: true });
      expect(res.body.error).toContain('body.extra: is not an accepted field');
      res = await putMembers(ids.audio, { usernames: ['x'.repeat(65)] });
      expectEnvelope(res, 400);
      expect(res.body.error).toContain('must NOT have more than 64 characters');
      res = await putMembers(ids.audio, { usernames: Array.from({ length: 4097 }, (_, i) => `u${i}`) });
      expectEnvelope(res, 400);
      expect(res.body.error).toContain('must NOT have more than 4096 items');
      res = await call('PUT', `/auth/groups/${ids.audio}/members`, { token: await admin(), rawBody: '{"usernames": [' });
      expectEnvelope(res, 400);
      res = await call('PUT', `/auth/groups/${ids.audio}/members`, {
        token: await admin(),
        rawBody: '{"usernames": []}',
        headers: { 'content-type': 'text/plain' },
      });
      expectEnvelope(res, 400);
    });
  });

  test.each(['0', '-1', 'abc', '2147483648', '1.5', '0x10'])('400 naming path.groupId for %s', async (id) => {
    const res = await putMembers(id, { usernames: [] });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^path\.groupId: /);
  });

  test('404 group_not_found for an unknown group', async () => {
    const res = await putMembers(2147483647, { usernames: [] });
    expectEnvelope(res, 404, 'group_not_found');
    expect(res.body.error).toBe('group 2147483647 does not exist');
  });

  test('404 user_not_found naming the unknown user; nothing persisted', async () => {
    await unchanged(ids.audio, async () => {
      const res = await putMembers(ids.audio, { usernames: ['alice', 'mallory', 'eve'] });
      expectEnvelope(res, 404, 'user_not_found');
      expect(res.body.error).toBe('user mallory does not exist on the host of group audio (nor eve)');
    });
  });

  test('a user of another node is unknown here', async () => {
    const other = await createGroupHost();
    await testDb().insertInto('host_users').values({ node_id: other.nodeId, name: 'dave', uid: 1010, gid: 1010 }).execute();
    expectEnvelope(await putMembers(ids.audio, { usernames: ['dave'] }), 404, 'user_not_found');
  });

  test('409 root_must_stay_in_wheel; nothing persisted', async () => {
    await unchanged(ids.wheel, async () => {
      const res = await putMembers(ids.wheel, { usernames: ['alice'] });
      expectEnvelope(res, 409, 'root_must_stay_in_wheel');
      expect(res.body.error).toBe('user root cannot be removed from group wheel');
    });
  });

  test('409 primary_group_member naming the field when a user would be added to their own primary group', async () => {
    await unchanged(ids.alice, async () => {
      const res = await putMembers(ids.alice, { usernames: ['bob', 'alice'] });
      expectEnvelope(res, 409, 'primary_group_member');
      expect(res.body.error).toBe(
        'body.usernames[1]: group alice is the primary group of alice, who is a member through it and cannot be added to its member list',
      );
    });
  });

  test('a primary member the group lists may be removed: the membership through the group id stays', async () => {
    // developers lists carol, whose primary group it is (and so would a group a user was added to before this rule)
    await testDb()
      .updateTable('host_groups')
      .set({ members: JSON.stringify(['hostmgr']) })
      .where('id', '=', ids.hostmgr)
      .execute();
    expectEnvelope(await putMembers(ids.hostmgr, { usernames: [] }), 200, 'group_members_updated');
    expect((await groupRow(ids.hostmgr))!.members).toEqual([]);
    const res = await putMembers(ids.developers, { usernames: ['bob'] });
    expectEnvelope(res, 200, 'group_members_updated');
    expect((await groupRow(ids.developers))!.members).toEqual(['bob']);
    expect((await groupTasks(ids.developers)).at(-1)!.payload).toEqual({ group: 'developers', members: ['bob'] });
  });

  test('413 for a body over 1 MiB, before anything is written', async () => {
    await unchanged(ids.audio, async () => {
      const res = await call('PUT', `/auth/groups/${ids.audio}/members`, {
        token: await admin(),
        rawBody: JSON.stringify({ usernames: ['x'.repeat(1024 * 1024 + 1)] }),
      });
      expectEnvelope(res, 413, 'payload_too_large');
    });
  });

  test('401 without or with a bad token; 403 for operator and viewer (admin only)', async () => {
    await unchanged(ids.audio, async () => {
      expectEnvelope(await putMembers(ids.audio, { usernames: [] }, null), 401);
      expectEnvelope(await putMembers(ids.audio, { usernames: [] }, 'not-a-token'), 401);
      expectEnvelope(await putMembers(ids.audio, { usernames: [] }, await tokenFor('operator')), 403, 'forbidden');
      expectEnvelope(await putMembers(ids.audio, { usernames: [] }, await tokenFor('viewer')), 403, 'forbidden');
    });
  });
});

describe('E2 DELETE /auth/groups/{groupId}', () => {
  test('200 {id, name}; the group is marked deleted, a group.delete task queued; a second delete is 404', async () => {
    const res = await del(ids.audio);
    expectEnvelope(res, 200, 'group_deleted');
    expect(res.body.data).toEqual({ id: ids.audio, name: 'audio' });
    expect((await groupRow(ids.audio))!.deleted_at).not.toBeNull();
    const task = (await groupTasks(ids.audio)).at(-1)!;
    expect(task).toMatchObject({ kind: 'group.delete', node_id: nodeId, status: 'queued' });
    expect(task.payload).toEqual({ group: 'audio' });
    const again = await del(ids.audio);
    expectEnvelope(again, 404, 'group_not_found');
    // nor can its members be replaced any more
    expectEnvelope(await putMembers(ids.audio, { usernames: [] }), 404, 'group_not_found');
  });

  test.each([
    ['wheel', 'group wheel is protected and cannot be deleted'],
    ['hostmgr', 'group hostmgr is protected and cannot be deleted'],
  ])('409 group_protected for %s', async (name, detail) => {
    const res = await del(ids[name]);
    expectEnvelope(res, 409, 'group_protected');
    expect(res.body.error).toBe(detail);
    expect((await groupRow(ids[name]))!.deleted_at).toBeNull();
  });

  test('409 group_referenced for a user’s primary group, naming the users', async () => {
    let res = await del(ids.alice);
    expectEnvelope(res, 409, 'group_referenced');
    expect(res.body.error).toBe('group alice is the primary group of alice and cannot be deleted');
    res = await del(ids.developers);
    expectEnvelope(res, 409, 'group_referenced');
    expect(res.body.error).toContain('primary group of carol');
    expect(await groupTasks(ids.alice)).toHaveLength(0);
  });

  test('404 for an unknown group; 400 naming path.groupId for a malformed id', async () => {
    expectEnvelope(await del(2147483646), 404, 'group_not_found');
    for (const id of ['0', 'x', '-3', '99999999999']) {
      const res = await del(id);
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^path\.groupId: /);
    }
  });

  test('401 without a token; 403 for operator and viewer; nothing deleted', async () => {
    expectEnvelope(await del(ids.staff, null), 401);
    expectEnvelope(await del(ids.staff, await tokenFor('operator')), 403, 'forbidden');
    expectEnvelope(await del(ids.staff, await tokenFor('viewer')), 403, 'forbidden');
    expect((await groupRow(ids.staff))!.deleted_at).toBeNull();
  });
});

describe('a failed group task: the store returns to the host’s last report', () => {
  const finishFailed = async (node: string, taskId: number, error: string) => {
    const token = await tokenFor('agent', node);
    expectEnvelope(await call('POST', `/agent/tasks/${taskId}/start`, { token }), 200, 'task_started');
    expectEnvelope(await call('POST', `/agent/tasks/${taskId}/finish`, { token, body: { attempt: 1, status: 'failed', error } }), 200, 'task_finished');
  };

  test('E1: the persisted members are replaced by the reported ones', async () => {
    const host = await createGroupHost();
    expectEnvelope(await putMembers(host.ids.video, { usernames: ['carol'] }), 200);
    const [task] = await groupTasks(host.ids.video);
    await finishFailed(host.nodeId, task.id, "pw: user `carol' does not exist");
    expect((await groupRow(host.ids.video))!.members).toEqual(['alice', 'bob']);
  });

  test('E1: only the failed task’s group goes back; another group’s accepted change stays', async () => {
    const host = await createGroupHost();
    expectEnvelope(await putMembers(host.ids.audio, { usernames: ['bob'] }), 200);
    expectEnvelope(await putMembers(host.ids.video, { usernames: ['carol'] }), 200);
    const [task] = await groupTasks(host.ids.video);
    await finishFailed(host.nodeId, task.id, "pw: user `carol' does not exist");
    expect((await groupRow(host.ids.video))!.members).toEqual(['alice', 'bob']);
    expect((await groupRow(host.ids.audio))!.members).toEqual(['bob']);
    expect(await groupTasks(host.ids.audio)).toEqual([expect.objectContaining({ status: 'queued' })]);
  });

  test('E2: the group is no longer marked deleted and can be deleted again', async () => {
    const host = await createGroupHost();
    expectEnvelope(await del(host.ids.staff), 200);
    const [task] = await groupTasks(host.ids.staff);
    await finishFailed(host.nodeId, task.id, "pw: unknown group `staff'");
    expect((await groupRow(host.ids.staff))!.deleted_at).toBeNull();
    expectEnvelope(await del(host.ids.staff), 200, 'group_deleted');
  });
});

describe('inventory projection', () => {
  test('groups keep their ids across reports; a group the host no longer lists is dropped', async () => {
    const { applyInventory } = await import('#domain/pools/apply-inventory');
    const { nodeId: n, ids: before } = await createGroupHost();
    await applyInventory(testDb(), n, {
      users: [{ name: 'root', uid: 0, gid: 0 }],
      groups: [
        { name: 'wheel', gid: 0, members: ['root', 'bob'] },
        { name: 'staff', gid: 20, members: [] },
      ],
    });
    const rows = await testDb().selectFrom('host_groups').selectAll().where('node_id', '=', n).orderBy('name').execute();
    expect(rows.map((r) => [r.name, r.id, r.members])).toEqual([
      ['staff', before.staff, []],
      ['wheel', before.wheel, ['root', 'bob']],
    ]);
    expect(await testDb().selectFrom('host_users').select('name').where('node_id', '=', n).execute()).toEqual([{ name: 'root' }]);
  });
});
