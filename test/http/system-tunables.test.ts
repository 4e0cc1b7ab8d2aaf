import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { createHost, createPrimaryHost } from './zfs-fixtures.ts';
import { persistedConfiguration, queueReapplyTasks } from '#domain/reapply';
import { inTransaction } from '#store/tx';
import { sampleResultOf } from '../helpers/task-results.ts';

const put = async (body: unknown, opts: { nodeId?: string; token?: string | null; query?: string } = {}) =>
  call('PUT', `/system/tunables${opts.query ?? (opts.nodeId ? `?nodeId=${opts.nodeId}` : '')}`, {
    body,
    token: opts.token === undefined ? await tokenFor('admin') : opts.token,
  });

describe('E11 PUT /system/tunables (validation, persistence, task)', () => {
  let nodeId: string;
  beforeAll(async () => {
    ({ nodeId } = await createHost());
  });

  test('200 with the persisted record; a tunable.apply task carries sysctl name and value', async () => {
    const res = await put({ name: 'kern.maxfiles', value: '65536' }, { nodeId });
    expectEnvelope(res, 200, 'tunable_set');
    expect(res.body.data).toMatchObject({ nodeId, name: 'kern.maxfiles', value: '65536', type: 'integer', previousValue: '32768' });
    const stored = await testDb()
      .selectFrom('tunable_settings')
      .selectAll()
      .where('node_id', '=', nodeId)
      .where('name', '=', 'kern.maxfiles')
      .executeTakeFirstOrThrow();
    expect(stored.value).toBe('65536');
    expect(stored.task_id).toBe(res.body.data.taskId);
    const task = await testDb().selectFrom('tasks').selectAll().where('id', '=', res.body.data.taskId).executeTakeFirstOrThrow();
    expect(task).toMatchObject({ kind: 'tunable.apply', node_id: nodeId, resource: 'tunable:kern.maxfiles', status: 'queued' });
    expect(task.payload).toEqual({ name: 'kern.maxfiles', value: '65536' });
  });

  test('a change made while the agent was down is in effect through the re-application at agent start: it ends success, not "superseded", and raises no failure', async () => {
    const { nodeId: node } = await createHost();
    const agent = await tokenFor('agent', node);
    const res = await put({ name: 'kern.maxfiles', value: '70000' }, { nodeId: node });
    expectEnvelope(res, 200);
    const request = res.body.data.taskId as number;
    // the agent starts: its registration queues the persisted configuration, which it runs first
    const reapplied = (await inTransaction(testDb(), (trx) => queueReapplyTasks(trx, node))).find((t) => t.resource === 'tunable:kern.maxfiles')!;
    expect(reapplied.payload).toEqual({ name: 'kern.maxfiles', value: '70000' });
    const started = await call('POST', `/agent/tasks/${reapplied.id}/start`, { token: agent });
    expect(started.body.data.run).toBe(true);
    // the request's own message arrives meanwhile: it waits for the re-application, whose outcome is its own
    const waiting = await call('POST', `/agent/tasks/${request}/start`, { token: agent });
    expect(waiting.body.data).toMatchObject({ run: false, waitFor: { taskId: reapplied.id } });
    expectEnvelope(
      await call('POST', `/agent/tasks/${reapplied.id}/finish`, {
        token: agent,
        body: { attempt: started.body.data.attempt, status: 'success', result: await sampleResultOf(reapplied.id) },
      }),
      200,
    );
    const ended = await call('POST', `/agent/tasks/${request}/start`, { token: agent });
    expect(ended.body.data.run).toBe(false);
    const row = await testDb().selectFrom('tasks').selectAll().where('id', '=', request).executeTakeFirstOrThrow();
    expect({ status: row.status, error: row.error, attempts: row.attempts }).toEqual({ status: 'success', error: '', attempts: 0 });
    expect(row.output).toContain(`applied by task ${reapplied.id}`);
    const failures = await testDb().selectFrom('notifications').select('title').where('node_id', '=', node).where('kind', '=', 'task_failed').execute();
    expect(failures).toEqual([]);
  });

  test('a second setting replaces the first (one record per tunable) and is what the agent re-applies', async () => {
    expectEnvelope(await put({ name: 'kern.ipc.somaxconn', value: '1024' }, { nodeId }), 200);
    const res = await put({ name: 'kern.ipc.somaxconn', value: '4096' }, { nodeId });
    expectEnvelope(res, 200);
    const rows = await testDb().selectFrom('tunable_settings').selectAll().where('node_id', '=', nodeId).where('name', '=', 'kern.ipc.somaxconn').execute();
    expect(rows.map((r) => r.value)).toEqual(['4096']);
    const reapply = await persistedConfiguration(testDb(), nodeId);
    expect(reapply).toContainEqual({ kind: 'tunable.apply', resource: 'tunable:kern.ipc.somaxconn', payload: { name: 'kern.ipc.somaxconn', value: '4096' } });
  });

  test('values are accepted per type: 64-bit unsigned, int8 negative, strings, booleans normalised', async () => {
    expectEnvelope(await put({ name: 'vfs.zfs.arc_max', value: '18446744073709551615' }, { nodeId }), 200);
    expectEnvelope(await put({ name: 'net.inet.ip.forwarding', value: '-128' }, { nodeId }), 200);
    const str = await put({ name: 'kern.hostname', value: 'db-1.example.org' }, { nodeId });
    expectEnvelope(str, 200);
    expect(str.body.data.value).toBe('db-1.example.org');
    const bool = await put({ name: 'hw.usb.disable_enumeration', value: 'true' }, { nodeId });
    expectEnvelope(bool, 200);
    expect(bool.body.data.value).toBe('1');
  });

  test('404 tunable_not_found for a tunable the node did not report', async () => {
    const res = await put({ name: 'kern.no_such_knob', value: '1' }, { nodeId });
    expectEnvelope(res, 404, 'tunable_not_found');
    expect(res.body.error).toBe(`tunable kern.no_such_knob does not exist on node ${nodeId}`);
  });

  test('400 tunable_read_only for a read-only tunable, naming body.name; nothing persisted', async () => {
    const res = await put({ name: 'kern.ostype', value: 'Linux' }, { nodeId });
    expectEnvelope(res, 400, 'tunable_read_only');
    expect(res.body.error).toBe('body.name: tunable kern.ostype is read-only');
    const row = await testDb().selectFrom('tunable_settings').select('name').where('node_id', '=', nodeId).where('name', '=', 'kern.ostype').executeTakeFirst();
    expect(row).toBeUndefined();
  });

  test('400 invalid_tunable_value when the value does not fit the type, naming body.value', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['kern.maxfiles', '2147483648', /between -2147483648 and 2147483647 \(type integer\)/],
      ['kern.maxfiles', 'many', /must be a decimal integer/],
      ['kern.maxfiles', '1.5', /must be a decimal integer/],
      ['kern.maxfiles', '', /must be a decimal integer/],
      ['kern.ipc.somaxconn', '-1', /between 0 and 4294967295 \(type unsigned integer\)/],
      ['vfs.zfs.arc_max', '18446744073709551616', /between 0 and 18446744073709551615/],
      ['net.inet.ip.forwarding', '128', /between -128 and 127 \(type int8_t\)/],
      ['hw.usb.disable_enumeration', 'maybe', /one of 0, 1, true, false/],
      ['kern.hostname', 'a\nb', /control characters/],
      ['kern.clockrate', '1', /type opaque/],
    ];
    for (const [name, value, problem] of cases) {
      const res = await put({ name, value }, { nodeId });
      expectEnvelope(res, 400, 'invalid_tunable_value');
      expect(res.body.error).toMatch(/^body\.value: /);
      expect(res.body.error).toMatch(problem);
    }
  });

  test('400 naming every malformed field of the body and the query', async () => {
    let res = await put({}, { nodeId });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.name: is required');
    expect(res.body.error).toContain('body.value: is required');
    res = await put({ name: 7, value: 7 }, { nodeId });
    expect(res.body.error).toContain('body.name: must be string');
    expect(res.body.error).toContain('body.value: must be string');
    res = await put({ name: 'kern..x', value: '1', extra: 1 }, { nodeId });
    expect(res.body.error).toContain('body.name: must match pattern');
    expect(res.body.error).toContain('body.extra: is not an accepted field');
    res = await put({ name: 'kern.maxfiles', value: 'x'.repeat(1025) }, { nodeId });
    expect(res.body.error).toContain('body.value: must NOT have more than 1024 characters');
    res = await put({ name: 'kern.maxfiles', value: '1' }, { query: '?node=1' });
    expectEnvelope(res, 400);
    expect(res.body.error).toContain('query.node: is not an accepted field');
  });

  test('404 cluster_node_not_found for an unknown nodeId', async () => {
    const res = await put({ name: 'kern.maxfiles', value: '1' }, { nodeId: 'no-such-node' });
    expectEnvelope(res, 404, 'cluster_node_not_found');
  });

  test('without nodeId the primary node (the member admitted first) is the target', async () => {
    const primary = await createPrimaryHost();
    const res = await put({ name: 'kern.maxfiles', value: '4242' });
    expectEnvelope(res, 200);
    expect(res.body.data.nodeId).toBe(primary.nodeId);
  });

  test('401 without a token; 403 for operator (admin only)', async () => {
    expectEnvelope(await put({ name: 'kern.maxfiles', value: '1' }, { nodeId, token: null }), 401);
    expectEnvelope(await put({ name: 'kern.maxfiles', value: '1' }, { nodeId, token: await tokenFor('operator') }), 403, 'forbidden');
  });
});
