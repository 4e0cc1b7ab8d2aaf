import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, tokenFor, testDb, uid } from '../helpers/api.ts';
import { insertNode, queueTask, stackQueue } from '../helpers/agent.ts';

const inventory = (hostname: string, extra: Record<string, unknown> = {}) => ({
  hostname,
  os: 'FreeBSD 14.1-RELEASE',
  cpus: 8,
  memoryBytes: 17179869184,
  ...extra,
});
const register = (token: string, id: string, extra: Record<string, unknown> = {}) =>
  call('POST', '/agent/register', {
    token,
    body: {
      id,
      name: `host-${id.slice(0, 6)}`,
      ip: '192.0.2.7',
      inventory: inventory(`host-${id.slice(0, 6)}`),
      heartbeatIntervalS: 5,
      agentVersion: '0.1.0',
      ...extra,
    },
  });

describe('agent endpoints: registration, heartbeat, inventory, node reads', () => {
  beforeAll(() => stackQueue());

  test('register creates a pending node (201), then refreshes it (200); returns the queue URL', async () => {
    const id = randomUUID();
    const token = await tokenFor('agent', id);
    const first = await register(token, id);
    expectEnvelope(first, 201, 'node_registered');
    expect(first.body.data.node).toMatchObject({ id, status: 'pending', online: true, heartbeatIntervalS: 5, agentVersion: '0.1.0' });
    expect(first.body.data.queueUrl).toMatch(new RegExp(`-${id}\\.fifo$`));
    expect(first.body.data.reapply).toEqual([]);
    await testDb().updateTable('nodes').set({ status: 'member' }).where('id', '=', id).execute();
    const again = await register(token, id, { name: 'renamed', ip: '192.0.2.8' });
    expectEnvelope(again, 200, 'node_registered');
    // a member stays a member; name and address follow the host
    expect(again.body.data.node).toMatchObject({ id, status: 'member', name: 'renamed', ip: '192.0.2.8' });
    const row = await testDb().selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.inventory).toMatchObject({ hostname: `host-${id.slice(0, 6)}`, cpus: 8 });
  });

  test('a token for node X can never register or act as node Y (403)', async () => {
    const x = randomUUID();
    const y = randomUUID();
    const res = await register(await tokenFor('agent', x), y);
    expectEnvelope(res, 403, 'forbidden');
    expect(res.body.error).toContain(`bound to node ${x}, not to node ${y}`);
    expect(await testDb().selectFrom('nodes').select('id').where('id', '=', y).executeTakeFirst()).toBeUndefined();
    // a token bound to no node
    expectEnvelope(await call('POST', '/agent/heartbeat', { token: await tokenFor('agent') }), 403, 'forbidden');
  });

  test('only agent tokens may call /api/agent/* (admin is 403 too)', async () => {
    expectEnvelope(await call('POST', '/agent/heartbeat'), 403, 'forbidden');
    expectEnvelope(await call('POST', '/agent/heartbeat', { token: null }), 401);
  });

  test('register validates the body and lists every bad field', async () => {
    const id = randomUUID();
    const res = await call('POST', '/agent/register', {
      token: await tokenFor('agent', id),
      body: { id: 'not-a-uuid', name: '', inventory: { hostname: 'h' }, heartbeatIntervalS: 0 },
    });
    expectEnvelope(res, 400, 'validation_failed');
    for (const f of ['body.id', 'body.name', 'body.ip', 'body.inventory.os', 'body.heartbeatIntervalS']) expect(res.body.error).toContain(f);
  });

  test.each(['not-an-address', `${'1'.repeat(64)}`, '127.1', '0x7f.0.0.1', '192.0.2.7 ; id:1', 'fe80::1%em0', 'host.example.net'])(
    'register refuses the address %j with 400 naming body.ip; nothing is stored',
    async (ip) => {
      const id = randomUUID();
      const res = await register(await tokenFor('agent', id), id, { ip });
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toBe('body.ip: must be an IP address (IPv4 dotted decimal or IPv6)');
      expect(await testDb().selectFrom('nodes').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    },
  );

  test('register accepts IPv4 and IPv6 addresses', async () => {
    for (const ip of ['198.51.100.20', '2001:db8::20']) {
      const id = randomUUID();
      expectEnvelope(await register(await tokenFor('agent', id), id, { ip }), 201, 'node_registered');
    }
  });

  test('heartbeat before registration is 404; after it, the node is online', async () => {
    const id = randomUUID();
    const token = await tokenFor('agent', id);
    const early = await call('POST', '/agent/heartbeat', { token });
    expectEnvelope(early, 404, 'node_not_registered');
    await register(token, id);
    await testDb()
      .updateTable('nodes')
      .set({ last_seen_at: new Date(Date.now() - 3600_000) })
      .where('id', '=', id)
      .execute();
    expect((await call('GET', `/cluster/nodes/${id}`, { token: await tokenFor('viewer') })).body.data.online).toBe(false);
    const hb = await call('POST', '/agent/heartbeat', { token });
    expectEnvelope(hb, 200, 'heartbeat_recorded');
    expect(hb.body.data.nodeId).toBe(id);
    const node = await call('GET', `/cluster/nodes/${id}`, { token: await tokenFor('viewer') });
    expectEnvelope(node, 200, 'node_found');
    expect(node.body.data).toMatchObject({ id, online: true, status: 'pending' });
    expect(node.body.data.inventory).toMatchObject({ cpus: 8 });
  });

  test('inventory: a change is stored, the same one again is not re-written', async () => {
    const id = randomUUID();
    const token = await tokenFor('agent', id);
    await register(token, id);
    const changed = await call('PUT', '/agent/inventory', { token, body: { inventory: inventory('h2', { cpus: 16 }) } });
    expectEnvelope(changed, 200, 'inventory_recorded');
    expect(changed.body.data.changed).toBe(true);
    const at = changed.body.data.inventoryAt;
    const same = await call('PUT', '/agent/inventory', {
      token,
      body: { inventory: { cpus: 16, memoryBytes: 17179869184, os: 'FreeBSD 14.1-RELEASE', hostname: 'h2' } },
    });
    expect(same.body.data).toMatchObject({ changed: false, inventoryAt: at });
    const row = await testDb().selectFrom('nodes').select('inventory').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.inventory).toMatchObject({ hostname: 'h2', cpus: 16 });
  });

  test('inventory: every known section is checked against the one inventory schema (400 naming the field); others pass', async () => {
    const id = randomUUID();
    const token = await tokenFor('agent', id);
    await register(token, id);
    const jail = {
      ctid: 7,
      name: 'web',
      state: 'running',
      jid: 3,
      hostname: 'web',
      path: '/j/web',
      dataset: null,
      cpuSet: [],
      memoryBytes: 0,
      memoryUsedBytes: null,
    };
    const bad = await call('PUT', '/agent/inventory', {
      token,
      body: { inventory: inventory('h3', { jails: [{ ...jail, state: 'dancing' }], pools: [{ name: 'tank' }] }) },
    });
    expectEnvelope(bad, 400, 'validation_failed');
    for (const f of ['body.inventory.jails[0].state', 'body.inventory.jails[0].hooks', 'body.inventory.pools[0].guid']) expect(bad.body.error).toContain(f);
    const row = await testDb().selectFrom('nodes').select('inventory').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.inventory).not.toHaveProperty('jails');
    // a section the control plane does not know (a newer agent's) passes through and is stored
    const newer = await call('PUT', '/agent/inventory', { token, body: { inventory: inventory('h3', { futureSection: [{ x: 1 }] }) } });
    expectEnvelope(newer, 200, 'inventory_recorded');
  });

  test('GET /api/cluster/nodes lists nodes with online state and filters', async () => {
    const on = await insertNode(undefined, { status: 'member' });
    const off = await insertNode(undefined, { status: 'member', lastSeenAt: new Date(Date.now() - 40_000), heartbeatIntervalS: 10 });
    const all = await call('GET', '/cluster/nodes?status=member&size=100', { token: await tokenFor('viewer') });
    expectEnvelope(all, 200, 'nodes_listed');
    const byId = new Map(all.body.data.data.map((n: { id: string }) => [n.id, n]));
    expect(byId.get(on)).toMatchObject({ online: true, status: 'member' });
    expect(byId.get(off)).toMatchObject({ online: false });
    expect(byId.get(on)).not.toHaveProperty('inventory');
    const offline = await call('GET', '/cluster/nodes?online=false&size=100', { token: await tokenFor('viewer') });
    const offIds = offline.body.data.data.map((n: { id: string }) => n.id);
    expect(offIds).toContain(off);
    expect(offIds).not.toContain(on);
    const missing = await call('GET', `/cluster/nodes/${randomUUID()}`, { token: await tokenFor('viewer') });
    expectEnvelope(missing, 404, 'cluster_node_not_found');
  });
});

describe('agent endpoints: task lifecycle', () => {
  let nodeId: string;
  let token: string;
  beforeAll(async () => {
    stackQueue();
    nodeId = randomUUID();
    token = await tokenFor('agent', nodeId);
    await register(token, nodeId);
  });
  const newTask = () => queueTask({ kind: 'host.probe', nodeId, resource: `probe:${uid()}`, payload: { sysctls: [] }, dispatch: false });

  test('start is idempotent by task id: the first start runs, every later one says not to', async () => {
    const t = await newTask();
    const first = await call('POST', `/agent/tasks/${t.id}/start`, { token });
    expectEnvelope(first, 200, 'task_started');
    expect(first.body.data).toMatchObject({ run: true, attempt: 1, task: { id: t.id, status: 'running', phase: 'started' } });
    // what to run comes from the task row (the queue message is only a pointer)
    expect(first.body.data.work).toEqual({ kind: 'host.probe', payload: { sysctls: [] }, peers: [] });
    const second = await call('POST', `/agent/tasks/${t.id}/start`, { token });
    expectEnvelope(second, 200, 'task_not_startable');
    expect(second.body.data).toMatchObject({ run: false, attempt: 1, reason: `task ${t.id} is already running` });
    const row = await testDb().selectFrom('tasks').select(['attempts', 'started_at']).where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(1);
  });

  test('a task whose resource has another task running on the node waits: stays queued, runs once that one ended', async () => {
    const resource = `probe:${uid()}`;
    const first = await queueTask({ kind: 'host.probe', nodeId, resource, payload: { sysctls: [] }, dispatch: false });
    const second = await queueTask({ kind: 'host.probe', nodeId, resource, payload: { sysctls: [] }, dispatch: false });
    expectEnvelope(await call('POST', `/agent/tasks/${first.id}/start`, { token }), 200, 'task_started');
    const early = await call('POST', `/agent/tasks/${second.id}/start`, { token });
    expectEnvelope(early, 200, 'task_not_startable');
    expect(early.body.data).toMatchObject({
      run: false,
      attempt: 0,
      waitFor: { taskId: first.id, resource },
      reason: `task ${first.id} of ${resource} is running; task ${second.id} waits for it`,
    });
    expect(early.body.data.work).toBeUndefined();
    expect(await testDb().selectFrom('tasks').select(['status', 'attempts']).where('id', '=', second.id).executeTakeFirstOrThrow()).toEqual({
      status: 'queued',
      attempts: 0,
    });
    expectEnvelope(
      await call('POST', `/agent/tasks/${first.id}/finish`, { token, body: { attempt: 1, status: 'success', result: { values: {} } } }),
      200,
      'task_finished',
    );
    const later = await call('POST', `/agent/tasks/${second.id}/start`, { token });
    expectEnvelope(later, 200, 'task_started');
    expect(later.body.data).toMatchObject({ run: true, attempt: 1 });
    expect(later.body.data.waitFor).toBeUndefined();
  });

  test('progress and finish; a repeated finish changes nothing; start after finish does not run', async () => {
    const t = await newTask();
    await call('POST', `/agent/tasks/${t.id}/start`, { token });
    const p = await call('POST', `/agent/tasks/${t.id}/progress`, { token, body: { attempt: 1, phase: 'reading', progress: 40, output: 'line 1\n' } });
    expectEnvelope(p, 200, 'task_progress_recorded');
    expect(p.body.data).toMatchObject({ phase: 'reading', progress: 40, output: 'line 1\n' });
    const f = await call('POST', `/agent/tasks/${t.id}/finish`, {
      token,
      body: { attempt: 1, status: 'success', result: { values: { a: '1' } }, output: 'line 2\n' },
    });
    expectEnvelope(f, 200, 'task_finished');
    expect(f.body.data).toMatchObject({ status: 'success', progress: 100, output: 'line 1\nline 2\n', result: { values: { a: '1' } }, error: '' });
    expect(f.body.data.finishedAt).not.toBeNull();
    const again = await call('POST', `/agent/tasks/${t.id}/finish`, {
      token,
      body: { attempt: 1, status: 'success', result: { values: { a: '1' } }, output: 'line 2\n' },
    });
    expectEnvelope(again, 200, 'task_already_finished');
    expect(again.body.data.output).toBe('line 1\nline 2\n');
    const start = await call('POST', `/agent/tasks/${t.id}/start`, { token });
    expect(start.body.data).toMatchObject({ run: false, reason: `task ${t.id} is already success` });
    // a contradicting outcome is refused
    expectEnvelope(
      await call('POST', `/agent/tasks/${t.id}/finish`, { token, body: { attempt: 1, status: 'failed', error: 'x' } }),
      409,
      'task_already_finished',
    );
    // progress after the end is refused
    expectEnvelope(await call('POST', `/agent/tasks/${t.id}/progress`, { token, body: { attempt: 1, phase: 'late', progress: 50 } }), 409, 'task_not_running');
  });

  test("a success whose result is not its kind's fails the task, naming the field; the same report again changes nothing", async () => {
    const t = await newTask();
    await call('POST', `/agent/tasks/${t.id}/start`, { token });
    const body = { attempt: 1, status: 'success', result: { values: { 'kern.hostname': 7 } } };
    const f = await call('POST', `/agent/tasks/${t.id}/finish`, { token, body });
    expectEnvelope(f, 200, 'task_finished');
    expect(f.body.data).toMatchObject({ status: 'failed', phase: 'failed' });
    expect(f.body.data.error).toBe(
      "the agent reported a host.probe result that does not match the kind's schema (result.values.kern.hostname: must be string)",
    );
    const n = await testDb().selectFrom('notifications').select('kind').where('title', 'like', `Task ${t.id} %`).execute();
    expect(n).toEqual([{ kind: 'task_failed' }]);
    expectEnvelope(await call('POST', `/agent/tasks/${t.id}/finish`, { token, body }), 200, 'task_already_finished');
    // no result at all is not a host.probe result either
    const u = await newTask();
    await call('POST', `/agent/tasks/${u.id}/start`, { token });
    const g = await call('POST', `/agent/tasks/${u.id}/finish`, { token, body: { attempt: 1, status: 'success' } });
    expect(g.body.data).toMatchObject({ status: 'failed', error: expect.stringContaining('result: must be object') });
  });

  test('a failed task raises a notification counted by E25', async () => {
    const before = (await call('GET', '/notifications/count')).body.data.active;
    const t = await newTask();
    await call('POST', `/agent/tasks/${t.id}/start`, { token });
    const f = await call('POST', `/agent/tasks/${t.id}/finish`, { token, body: { attempt: 1, status: 'failed', error: "sysctl: unknown oid 'nope'" } });
    expect(f.body.data).toMatchObject({ status: 'failed', error: "sysctl: unknown oid 'nope'" });
    const n = await testDb().selectFrom('notifications').selectAll().where('kind', '=', 'task_failed').where('title', 'like', `Task ${t.id} %`).execute();
    expect(n).toHaveLength(1);
    expect(n[0]).toMatchObject({ severity: 'error', node_id: nodeId, body: "sysctl: unknown oid 'nope'" });
    expect((await call('GET', '/notifications/count')).body.data.active).toBeGreaterThanOrEqual(before + 1);
  });

  test('finish before start is 409; a stale attempt is 409; unknown task 404', async () => {
    const t = await newTask();
    expectEnvelope(await call('POST', `/agent/tasks/${t.id}/finish`, { token, body: { attempt: 1, status: 'success' } }), 409, 'task_not_started');
    await call('POST', `/agent/tasks/${t.id}/start`, { token });
    expectEnvelope(await call('POST', `/agent/tasks/${t.id}/finish`, { token, body: { attempt: 2, status: 'success' } }), 409, 'task_attempt_superseded');
    const missing = await call('POST', '/agent/tasks/2147483000/start', { token });
    expectEnvelope(missing, 404, 'task_not_found');
  });

  test("a token for node X can never touch node Y's tasks (403), and nothing changes", async () => {
    const other = randomUUID();
    const otherToken = await tokenFor('agent', other);
    await register(otherToken, other);
    const t = await newTask();
    for (const [path, body] of [
      ['start', undefined],
      ['progress', { attempt: 1, phase: 'x', progress: 1 }],
      ['finish', { attempt: 1, status: 'success' }],
    ] as const) {
      const res = await call('POST', `/agent/tasks/${t.id}/${path}`, { token: otherToken, body });
      expectEnvelope(res, 403, 'forbidden');
      expect(res.body.error).toContain(`task ${t.id} belongs to node ${nodeId}`);
    }
    const row = await testDb().selectFrom('tasks').select(['status', 'attempts']).where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'queued', attempts: 0 });
  });

  test("interrupt-stale marks only this node's running tasks interrupted; a late outcome of the same attempt still lands", async () => {
    const nodeId = randomUUID();
    const token = await tokenFor('agent', nodeId);
    await register(token, nodeId);
    const newTask = () => queueTask({ kind: 'host.probe', nodeId, resource: `probe:${uid()}`, payload: { sysctls: [] }, dispatch: false });
    const a = await newTask();
    const b = await newTask();
    const other = randomUUID();
    const otherToken = await tokenFor('agent', other);
    await register(otherToken, other);
    const foreign = await queueTask({ kind: 'host.probe', nodeId: other, resource: `probe:${uid()}`, payload: { sysctls: [] }, dispatch: false });
    await call('POST', `/agent/tasks/${a.id}/start`, { token });
    await call('POST', `/agent/tasks/${foreign.id}/start`, { token: otherToken });
    const res = await call('POST', '/agent/tasks/interrupt-stale', { token });
    expectEnvelope(res, 200, 'stale_tasks_interrupted');
    expect(res.body.data.interrupted).toEqual([a.id]);
    const rows = await testDb().selectFrom('tasks').select(['id', 'status', 'error']).where('id', 'in', [a.id, b.id, foreign.id]).orderBy('id').execute();
    expect(rows.map((r) => r.status)).toEqual(['interrupted', 'queued', 'running']);
    expect(rows[0].error).toMatch(/agent restarted/);
    const late = await call('POST', `/agent/tasks/${a.id}/finish`, { token, body: { attempt: 1, status: 'success', result: { values: {} } } });
    expectEnvelope(late, 200, 'task_finished');
    expect(late.body.data.status).toBe('success');
  });
});
