import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { queueTask, waitUntil } from '../helpers/agent.ts';
import { arrangeNode, guestRow, jailInv, freeGuestId, setOnline, tasksOf as jailTasks } from './jail-setup.ts';
import { freeRids, insertVm, offlineNode, onlineNode, tasksOf as vmTasks } from './vm-fixtures.ts';

/**
 * POST /api/jail/{ctid}/power and POST /api/vm/{rid}/power through HTTP against guests arranged in the store
 * (the agent side: test/agent/guest-power-e2e.test.ts).
 */
const power = async (what: 'jail' | 'vm', id: number | string, body: unknown, token?: string | null) =>
  call('POST', `/${what}/${id}/power`, { body, token: token === undefined ? await tokenFor('operator') : token });

describe('jail power', () => {
  let node: string;
  let running: number;
  let stopped: number;
  beforeAll(async () => {
    [running, stopped] = [await freeGuestId(), await freeGuestId()];
    node = await arrangeNode({ jails: [jailInv(running, { state: 'running', jid: 3 }), jailInv(stopped)] });
  });

  test('401 without a token, 403 for a viewer; 400 names the field; nothing queued', async () => {
    expectEnvelope(await power('jail', stopped, { action: 'start' }, null), 401, 'unauthorized');
    expectEnvelope(await power('jail', stopped, { action: 'start' }, await tokenFor('viewer')), 403, 'forbidden');
    const bad = await power('jail', stopped, { action: 'poweroff' });
    expectEnvelope(bad, 400, 'validation_failed');
    expect(bad.body.error).toMatch(/^body\.action: /);
    const missing = await power('jail', stopped, {});
    expectEnvelope(missing, 400, 'validation_failed');
    expect(missing.body.error).toMatch(/body\.action/);
    expectEnvelope(await power('jail', '0', { action: 'start' }), 400, 'validation_failed');
    expect(await jailTasks(stopped)).toEqual([]);
  });

  test('404 jail_not_found for an unknown ctid', async () => {
    const ctid = await freeGuestId();
    const res = await power('jail', ctid, { action: 'start' });
    expectEnvelope(res, 404, 'jail_not_found');
  });

  test('a jail already in the wanted state: 200 at once, no task', async () => {
    const res = await power('jail', running, { action: 'start' });
    expectEnvelope(res, 200, 'jail_already_running');
    expect(res.body.data).toEqual({ guestId: running, action: 'start', outcome: 'unchanged', state: 'running', taskId: null });
    expectEnvelope(await power('jail', stopped, { action: 'stop' }), 200, 'jail_already_stopped');
    expect(await jailTasks(running)).toEqual([]);
    expect(await jailTasks(stopped)).toEqual([]);
  });

  test('202 with the task on the jail’s node; a second power request or one during a migration is 409', async () => {
    const res = await power('jail', running, { action: 'stop' });
    expectEnvelope(res, 202, 'jail_power_queued');
    expect(res.headers.get('location')).toBe(`/api/tasks/${res.body.data.taskId}`);
    expect(res.body.data).toMatchObject({ guestId: running, action: 'stop', outcome: 'queued', state: 'running' });
    const [task] = await jailTasks(running);
    expect(task).toMatchObject({ id: res.body.data.taskId, kind: 'jail.power', node_id: node, status: 'queued', exclusive: true });
    expect(task.payload).toEqual({ ctid: running, name: `j${running}`, action: 'stop' });
    const again = await power('jail', running, { action: 'restart' });
    expectEnvelope(again, 409, 'jail_busy');
    expect(again.body.error).toContain(`task ${task.id} (jail.power)`);
    expectEnvelope(await call('POST', `/tasks/${task.id}/cancel`, { token: await tokenFor('operator') }), 200, 'task_cancelled');
    // as if never requested: the store's jail is as it was
    expect((await guestRow(running))!.state).toBe('running');

    const migration = await queueTask({
      kind: 'jail.migrate',
      nodeId: node,
      resource: `jail:${stopped}`,
      payload: { ctid: stopped, name: `j${stopped}`, dataset: `zroot/jails/j${stopped}`, target: { nodeId: node, address: '192.0.2.1', hostKeys: [] } },
    });
    const during = await power('jail', stopped, { action: 'start' });
    expectEnvelope(during, 409, 'jail_busy');
    expect(during.body.error).toContain('mid-migration');
    await testDb().updateTable('tasks').set({ status: 'cancelled', finished_at: new Date() }).where('id', '=', migration.id).execute();
  });

  test('503 node_offline when the jail’s node is silent', async () => {
    await setOnline(node, false);
    try {
      expectEnvelope(await power('jail', stopped, { action: 'start' }), 503, 'node_offline');
    } finally {
      await setOnline(node, true);
    }
  });

  test('the request is audited with its task', async () => {
    const res = await power('jail', stopped, { action: 'restart' });
    expectEnvelope(res, 202, 'jail_power_queued');
    const taskId = res.body.data.taskId;
    const row = await waitUntil('the audit row', () =>
      testDb().selectFrom('audit_log').selectAll().where('task_id', '=', taskId).where('status', '=', 202).executeTakeFirst(),
    );
    expect(row).toMatchObject({ method: 'POST', route: '/api/jail/{ctid}/power' });
    await call('POST', `/tasks/${taskId}/cancel`, { token: await tokenFor('operator') });
  });
});

describe('vm power', () => {
  let node: string;
  beforeAll(async () => {
    node = await onlineNode();
  });

  test('401, 403 for a viewer, 400 for an unknown action, 404 for an unknown rid', async () => {
    const rid = await insertVm({ nodeId: node, state: 'running' });
    expectEnvelope(await power('vm', rid, { action: 'stop' }, null), 401, 'unauthorized');
    expectEnvelope(await power('vm', rid, { action: 'stop' }, await tokenFor('viewer')), 403, 'forbidden');
    const bad = await power('vm', rid, { action: 'suspend' });
    expectEnvelope(bad, 400, 'validation_failed');
    expect(bad.body.error).toMatch(/^body\.action: /);
    const [free] = await freeRids(1);
    expectEnvelope(await power('vm', free, { action: 'start' }), 404, 'vm_not_found');
    expect(await vmTasks(rid)).toEqual([]);
  });

  test('already so: start of a running VM, stop and poweroff of a shut-off one answer 200 without a task', async () => {
    const up = await insertVm({ nodeId: node, state: 'running' });
    const down = await insertVm({ nodeId: node, state: 'shut off' });
    expectEnvelope(await power('vm', up, { action: 'start' }), 200, 'vm_already_running');
    for (const action of ['stop', 'poweroff']) {
      const res = await power('vm', down, { action });
      expectEnvelope(res, 200, 'vm_already_shut_off');
      expect(res.body.data).toEqual({ guestId: down, action, outcome: 'unchanged', state: 'shut off', taskId: null });
    }
    expect([...(await vmTasks(up)), ...(await vmTasks(down))]).toEqual([]);
  });

  test('202: the task carries the VM’s E6 wait time; E5/E17/E19 and a second power action are 409 vm_busy behind it', async () => {
    const rid = await insertVm({ nodeId: node, state: 'running', options: { shutdownWaitTime: 77 } });
    const res = await power('vm', rid, { action: 'stop' });
    expectEnvelope(res, 202, 'vm_power_queued');
    const [task] = await vmTasks(rid);
    expect(task).toMatchObject({ kind: 'vm.power', node_id: node, status: 'queued', exclusive: true });
    expect(task.payload).toEqual({ rid, domain: String(rid), action: 'stop', waitTime: 77 });
    expectEnvelope(await power('vm', rid, { action: 'poweroff' }), 409, 'vm_busy');
    // the store still says shut off for a VM arranged that way: E5 would queue behind a start
    const down = await insertVm({ nodeId: node, state: 'shut off' });
    expectEnvelope(await power('vm', down, { action: 'start' }), 202, 'vm_power_queued');
    const e5 = await call('PUT', `/vm/${down}/options/qemu-guest-agent`, { body: { enabled: true }, token: await tokenFor('operator') });
    expectEnvelope(e5, 409, 'vm_busy');
    for (const t of [...(await vmTasks(rid)), ...(await vmTasks(down))])
      expectEnvelope(await call('POST', `/tasks/${t.id}/cancel`, { token: await tokenFor('operator') }), 200, 'task_cancelled');
  });

  test('409 vm_orphaned for an orphaned registration; 503 when the node is offline', async () => {
    const orphan = await insertVm({ nodeId: node, state: 'orphaned' });
    expectEnvelope(await power('vm', orphan, { action: 'start' }), 409, 'vm_orphaned');
    const away = await insertVm({ nodeId: await offlineNode(), state: 'shut off' });
    expectEnvelope(await power('vm', away, { action: 'start' }), 503, 'node_offline');
    expect(await vmTasks(orphan)).toEqual([]);
    expect(await vmTasks(away)).toEqual([]);
  });

  test('a repeated Idempotency-Key answers with the first task', async () => {
    const rid = await insertVm({ nodeId: node, state: 'shut off' });
    const headers = { 'Idempotency-Key': `power-${rid}` };
    const first = await call('POST', `/vm/${rid}/power`, { body: { action: 'start' }, token: await tokenFor('operator'), headers });
    const second = await call('POST', `/vm/${rid}/power`, { body: { action: 'start' }, token: await tokenFor('operator'), headers });
    expectEnvelope(first, 202, 'vm_power_queued');
    expectEnvelope(second, 202, 'vm_power_queued');
    expect(second.body.data.taskId).toBe(first.body.data.taskId);
    await call('POST', `/tasks/${first.body.data.taskId}/cancel`, { token: await tokenFor('operator') });
  });
});

test('a power request for a guest a backup restore (E15) is restoring is 409 busy, naming the restore; after it ends, 202', async () => {
  const ctid = await freeGuestId();
  const jailNode = await arrangeNode({ jails: [jailInv(ctid, { state: 'running', jid: 4 })] });
  const vmNode = await onlineNode();
  const rid = await insertVm({ nodeId: vmNode, state: 'running' });
  // the restore's task is keyed on its backup job; its payload names the guest it stops and starts again
  const restoring = (type: 'jail' | 'vm', id: number, runner: string) =>
    queueTask({
      kind: 'backup.restore',
      nodeId: runner,
      resource: `backup-job:${id}`,
      dispatch: false,
      payload: {
        jobId: id,
        eventId: id,
        dataset: `zroot/${type}s/${id}`,
        snapshot: null,
        source: { kind: 'node', nodeId: runner, dataset: `tank/b/${id}` },
        guest: { type, id, name: `${type}${id}` },
      },
    });
  const restores = [await restoring('jail', ctid, jailNode), await restoring('vm', rid, vmNode)];
  const jail = await power('jail', ctid, { action: 'stop' });
  expectEnvelope(jail, 409, 'jail_busy');
  expect(jail.body.error).toContain(`task ${restores[0].id} (backup.restore) is queued`);
  const vm = await power('vm', rid, { action: 'poweroff' });
  expectEnvelope(vm, 409, 'vm_busy');
  expect(vm.body.error).toContain(`task ${restores[1].id} (backup.restore) is queued`);
  expect([...(await jailTasks(ctid)), ...(await vmTasks(rid))]).toEqual([]);
  await testDb()
    .updateTable('tasks')
    .set({ status: 'success', finished_at: new Date() })
    .where(
      'id',
      'in',
      restores.map((t) => t.id),
    )
    .execute();
  expectEnvelope(await power('jail', ctid, { action: 'stop' }), 202, 'jail_power_queued');
  expectEnvelope(await power('vm', rid, { action: 'poweroff' }), 202, 'vm_power_queued');
});
