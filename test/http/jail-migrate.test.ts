import { sql } from 'kysely';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { queueTask } from '../helpers/agent.ts';
import { onlineSql } from '#domain/nodes/presence';
import { taskKinds } from '#shared/agent-api/task-kinds';
import { arrangeNode, freeGuestId, guestRow, jailInv, tasksOf } from './jail-setup.ts';

const path = (ctid: number | string) => `/jail/${ctid}/migrations`;

describe('E20 POST /api/jail/{ctid}/migrations (validation and queueing)', () => {
  let operator: string;
  beforeAll(async () => {
    operator = await tokenFor('operator');
  });

  test('202 {guestId, outcome, taskId} + Location; an exclusive task on the source node; the guest stays put until it succeeds', async () => {
    const j = await freeGuestId();
    const source = await arrangeNode({ jails: [jailInv(j, { state: 'running', jid: 4 })] });
    const hostKey = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const target = await arrangeNode({ ip: '198.51.100.7', sshHostKeys: [hostKey] });
    const res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: target } });
    expectEnvelope(res, 202, 'jail_migration_queued');
    expect(res.body.data).toEqual({ guestId: j, outcome: 'queued', taskId: expect.any(Number) });
    expect(res.headers.get('location')).toBe(`/api/tasks/${res.body.data.taskId}`);
    const [task] = await tasksOf(j);
    expect(task).toMatchObject({ id: res.body.data.taskId, kind: 'jail.migrate', node_id: source, exclusive: true, status: 'queued' });
    // the target's address and host keys are stored as planned: the source's agent is handed these, not a re-read
    const planned = { nodeId: target, address: '198.51.100.7', hostKeys: [hostKey] };
    expect(task.payload).toEqual({ ctid: j, name: `j${j}`, dataset: `zroot/jails/j${j}`, target: planned });
    expect(taskKinds['jail.migrate'].peers?.(task.payload)).toEqual([{ kind: 'planned', ...planned }]);
    expect((await guestRow(j))!.node_id).toBe(source);
    // the jail's read names the migration in flight, so a list can show it "moving to" its target
    const view = await call('GET', `/jail/${j}`, { token: await tokenFor('viewer') });
    expectEnvelope(view, 200, 'jail');
    expect(view.body.data).toMatchObject({ nodeId: source, moving: { taskId: task.id, targetNodeId: target } });

    // the task is visible to viewers
    const t = await call('GET', `/tasks/${task.id}`, { token: await tokenFor('viewer') });
    expectEnvelope(t, 200);
    expect(t.body.data).toMatchObject({ id: task.id, status: 'queued', resource: `jail:${j}` });

    // the jail now has an active task: a second migration is 409, and so are E3/E4 (exclusive)
    const again = await call('POST', path(j), { token: operator, body: { targetNodeUuid: target } });
    expectEnvelope(again, 409, 'jail_busy');
    expectEnvelope(await call('PUT', `/jail/${j}/hardware/cpu`, { token: operator, body: { cores: 1 } }), 409, 'jail_busy');
    expect(await tasksOf(j)).toHaveLength(1);

    // once it has ended the jail is no longer moving
    await testDb().updateTable('tasks').set({ status: 'cancelled', finished_at: new Date() }).where('id', '=', task.id).execute();
    expect((await call('GET', `/jail/${j}`, { token: operator })).body.data.moving).toBeNull();
  });

  test('a repeated Idempotency-Key answers with the first task', async () => {
    const j = await freeGuestId();
    await arrangeNode({ jails: [jailInv(j)] });
    const target = await arrangeNode();
    const key = `mig-${uid()}`;
    const first = await call('POST', path(j), { token: operator, body: { targetNodeUuid: target }, headers: { 'idempotency-key': key } });
    const second = await call('POST', path(j), { token: operator, body: { targetNodeUuid: target }, headers: { 'idempotency-key': key } });
    expectEnvelope(first, 202);
    expectEnvelope(second, 202);
    expect(second.body.data).toEqual(first.body.data);
    expect(await tasksOf(j)).toHaveLength(1);
  });

  test('target omitted: the online member with the fewest guests, other than the source', async () => {
    const j = await freeGuestId();
    const source = await arrangeNode({ jails: [jailInv(j)] });
    // a fresh member with no guests: the minimum any candidate can have
    const empty = await arrangeNode();
    const res = await call('POST', path(j), { token: operator, body: {} });
    expectEnvelope(res, 202);
    const [task] = await tasksOf(j);
    const chosen = (task.payload as any).target.nodeId as string;
    expect(chosen).not.toBe(source);
    // the rule, checked against whatever else the shared store holds
    const candidates = await testDb()
      .selectFrom('nodes')
      .select(['nodes.id', 'nodes.status'])
      .select((eb) => eb.selectFrom('guests').whereRef('guests.node_id', '=', 'nodes.id').select(sql<number>`count(*)`.as('n')).as('guests'))
      .select(onlineSql('nodes').as('online'))
      .execute();
    const eligible = candidates.filter((c) => c.status === 'member' && c.online && c.id !== source);
    const min = Math.min(...eligible.map((c) => Number(c.guests)));
    const picked = eligible.find((c) => c.id === chosen)!;
    expect(Number(picked.guests)).toBe(min);
    expect(
      eligible
        .filter((c) => Number(c.guests) === min)
        .map((c) => c.id)
        .sort()[0],
    ).toBe(chosen);
    expect(min).toBe(0);
    expect(eligible.map((c) => c.id)).toContain(empty);
  });

  test('404 unknown jail or target node; 400 same node; 409 pending target, clashing id or busy jail; 503 offline target or source', async () => {
    const j = await freeGuestId();
    const source = await arrangeNode({ jails: [jailInv(j)] });
    const missing = '00000000-0000-4000-8000-000000000000';
    let res = await call('POST', path(await freeGuestId()), { token: operator, body: { targetNodeUuid: source } });
    expectEnvelope(res, 404, 'jail_not_found');
    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: missing } });
    expectEnvelope(res, 404, 'cluster_node_not_found');
    expect(res.body.error).toContain(missing);

    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: source } });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^body\.targetNodeUuid: must differ from the jail's current node/);

    const pending = await arrangeNode({ status: 'pending' });
    expectEnvelope(await call('POST', path(j), { token: operator, body: { targetNodeUuid: pending } }), 409, 'node_not_member');

    const offline = await arrangeNode({ online: false });
    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: offline } });
    expectEnvelope(res, 503, 'node_offline');
    expect(res.body.error).toContain(offline);

    // the target's host already has a guest with this id (a jail, or a VM)
    const clashJ = await arrangeNode({ jails: [] });
    await testDb()
      .updateTable('nodes')
      .set({ inventory: JSON.stringify({ cpus: 4, jails: [{ ctid: j }], vms: [] }) })
      .where('id', '=', clashJ)
      .execute();
    expectEnvelope(await call('POST', path(j), { token: operator, body: { targetNodeUuid: clashJ } }), 409, 'guest_id_conflict');
    const clashV = await arrangeNode({ vms: [{ rid: j }] });
    expectEnvelope(await call('POST', path(j), { token: operator, body: { targetNodeUuid: clashV } }), 409, 'guest_id_conflict');

    // any active task (not only exclusive ones) keeps the jail where it is
    const good = await arrangeNode();
    await queueTask({
      kind: 'jail.apply-hooks',
      nodeId: source,
      resource: `jail:${j}`,
      payload: { ctid: j, name: `j${j}`, hooks: (await guestRow(j))!.config.hooks as any },
      dispatch: false,
    });
    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: good } });
    expectEnvelope(res, 409, 'jail_busy');
    await testDb().updateTable('tasks').set({ status: 'success' }).where('resource', '=', `jail:${j}`).execute();

    // the source's agent does the work: it must be online too
    await testDb().updateTable('nodes').set({ last_seen_at: sql<Date>`now() - interval '1 hour'` }).where('id', '=', source).execute();
    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: good } });
    expectEnvelope(res, 503, 'node_offline');
    expect(res.body.error).toContain(source);
    expect((await tasksOf(j)).filter((t) => t.kind === 'jail.migrate')).toHaveLength(0);
  });

  test('bad input per field; 401; 403', async () => {
    const j = await freeGuestId();
    await arrangeNode({ jails: [jailInv(j)] });
    let res = await call('POST', path(0), { token: operator, body: {} });
    expectEnvelope(res, 400);
    expect(res.body.error).toMatch(/^path\.ctid: must be >= 1/);
    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: 42, other: true } });
    expectEnvelope(res, 400);
    expect(res.body.error).toContain('body.targetNodeUuid: must be string');
    expect(res.body.error).toContain('body.other: is not an accepted field');
    res = await call('POST', path(j), { token: operator, body: { targetNodeUuid: '' } });
    expect(res.body.error).toMatch(/^body\.targetNodeUuid: must NOT have fewer than 1 characters/);
    expectEnvelope(await call('POST', path(j), { token: null, body: {} }), 401);
    expectEnvelope(await call('POST', path(j), { token: await tokenFor('viewer'), body: {} }), 403);
    expect(await tasksOf(j)).toHaveLength(0);
  });
});
