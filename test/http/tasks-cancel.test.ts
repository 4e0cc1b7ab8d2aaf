import { call, expectEnvelope, tokenFor } from '../helpers/api.ts';
import { getTaskRow, insertNode, probeTask, stackQueue } from '../helpers/agent.ts';
import { sampleResultOf } from '../helpers/task-results.ts';

/** POST /api/tasks/{id}/cancel: queued ends at once, running is signalled to its agent, ended is 409. */
describe('POST /api/tasks/{id}/cancel', () => {
  let nodeId: string;
  let agent: string;
  let operator: string;
  beforeAll(async () => {
    stackQueue();
    nodeId = await insertNode();
    agent = await tokenFor('agent', nodeId);
    operator = await tokenFor('operator');
  });

  const start = (id: number) => call('POST', `/agent/tasks/${id}/start`, { token: agent });

  test('a queued task ends cancelled at once, and its agent is told not to run it', async () => {
    const t = await probeTask(nodeId, { dispatch: false });
    const res = await call('POST', `/tasks/${t.id}/cancel`, { token: operator });
    expectEnvelope(res, 200, 'task_cancelled');
    expect(res.body.data).toMatchObject({ id: t.id, status: 'cancelled', phase: 'cancelled' });
    expect(res.body.data.error).toMatch(/^cancelled by .+ before it started$/);
    expect(res.body.data.finishedAt).not.toBeNull();
    const s = await start(t.id);
    expectEnvelope(s, 200);
    expect(s.body.data).toMatchObject({ run: false, reason: `task ${t.id} is already cancelled` });
    expect((await getTaskRow(t.id)).attempts).toBe(0);
    // the list filter knows the status
    const list = await call('GET', `/tasks?status=cancelled&nodeId=${nodeId}`);
    expectEnvelope(list, 200, 'tasks_listed');
    expect(list.body.data.data.map((x: { id: number }) => x.id)).toContain(t.id);
  });

  test('a running task is signalled through the heartbeat and progress answers, then reported cancelled', async () => {
    const t = await probeTask(nodeId, { dispatch: false });
    const attempt = (await start(t.id)).body.data.attempt;
    const hb0 = await call('POST', '/agent/heartbeat', { token: agent });
    expect(hb0.body.data.cancel).not.toContain(t.id);

    const res = await call('POST', `/tasks/${t.id}/cancel`, { token: operator });
    expectEnvelope(res, 202, 'task_cancel_requested');
    expect(res.headers.get('location')).toBe(`/api/tasks/${t.id}`);
    expect(res.body.data.status).toBe('running');
    expect(Date.parse(res.body.data.cancelRequestedAt)).not.toBeNaN();
    // asked again while the agent stops it: the same answer
    expectEnvelope(await call('POST', `/tasks/${t.id}/cancel`, { token: operator }), 202, 'task_cancel_requested');

    const hb = await call('POST', '/agent/heartbeat', { token: agent });
    expectEnvelope(hb, 200, 'heartbeat_recorded');
    expect(hb.body.data.cancel).toContain(t.id);
    const p = await call('POST', `/agent/tasks/${t.id}/progress`, { token: agent, body: { attempt, phase: 'holding', progress: 50 } });
    expectEnvelope(p, 200, 'task_progress_recorded');
    expect(p.body.data.cancelRequestedAt).not.toBeNull();

    const f = await call('POST', `/agent/tasks/${t.id}/finish`, { token: agent, body: { attempt, status: 'cancelled', error: 'stopped while holding' } });
    expectEnvelope(f, 200);
    expect(f.body.data).toMatchObject({ status: 'cancelled', phase: 'cancelled', error: 'stopped while holding' });
    const hb2 = await call('POST', '/agent/heartbeat', { token: agent });
    expect(hb2.body.data.cancel).not.toContain(t.id);
  });

  test('an agent cannot report cancelled for a task nobody cancelled (409)', async () => {
    const t = await probeTask(nodeId, { dispatch: false });
    const attempt = (await start(t.id)).body.data.attempt;
    const f = await call('POST', `/agent/tasks/${t.id}/finish`, { token: agent, body: { attempt, status: 'cancelled' } });
    expectEnvelope(f, 409, 'task_not_cancelling');
    expect((await getTaskRow(t.id)).status).toBe('running');
  });

  test('a finished task is 409 task_already_finished; an unknown one 404', async () => {
    const t = await probeTask(nodeId, { dispatch: false });
    const attempt = (await start(t.id)).body.data.attempt;
    expectEnvelope(
      await call('POST', `/agent/tasks/${t.id}/finish`, { token: agent, body: { attempt, status: 'success', result: await sampleResultOf(t.id) } }),
      200,
    );
    const res = await call('POST', `/tasks/${t.id}/cancel`, { token: operator });
    expectEnvelope(res, 409, 'task_already_finished');
    expect(res.body.error).toBe(`task ${t.id} already ended success; only a queued or running task can be cancelled`);
    expect((await getTaskRow(t.id)).status).toBe('success');
    const gone = await call('POST', '/tasks/2147483000/cancel', { token: operator });
    expectEnvelope(gone, 404, 'task_not_found');
  });

  test('400 names a bad id; viewers and agents may not cancel', async () => {
    const bad = await call('POST', '/tasks/abc/cancel', { token: operator });
    expectEnvelope(bad, 400, 'validation_failed');
    expect(bad.body.error).toMatch(/^path\.id: /);
    const t = await probeTask(nodeId, { dispatch: false });
    expectEnvelope(await call('POST', `/tasks/${t.id}/cancel`, { token: await tokenFor('viewer') }), 403, 'forbidden');
    expectEnvelope(await call('POST', `/tasks/${t.id}/cancel`, { token: agent }), 403, 'forbidden');
    expectEnvelope(await call('POST', `/tasks/${t.id}/cancel`, { token: null }), 401);
    expect((await getTaskRow(t.id)).status).toBe('queued');
  });
});
