import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb } from '../helpers/api.ts';
import { queueTask, stackQueue } from '../helpers/agent.ts';
import { createToken } from '#shared/auth/tokens';
import { arcSample, createHost, poolSample, sample } from './zfs-fixtures.ts';

/** The audit rows a token left, oldest first, as `METHOD route status`. */
const rowsOf = async (tokenId: number) =>
  (await testDb().selectFrom('audit_log').select(['method', 'route', 'status']).where('token_id', '=', tokenId).orderBy('id').execute()).map(
    (r) => `${r.method} ${r.route} ${r.status}`,
  );

const agentToken = (nodeId: string) => createToken(testDb(), { name: `agent ${nodeId}`, role: 'agent', nodeId });

describe('routine agent reports are not audit events', () => {
  beforeAll(() => stackQueue());

  test('heartbeats, telemetry, progress and an unchanged inventory leave no row; registration, a changed inventory, start and finish do', async () => {
    const host = await createHost({ status: 'pending' });
    const { id: tokenId, token } = await agentToken(host.nodeId);
    const inventory = { ...host.inventory, hostname: `audited-${host.nodeId.slice(0, 6)}` };
    expectEnvelope(
      await call('POST', '/agent/register', { token, body: { id: host.nodeId, name: 'audited', ip: '192.0.2.9', inventory } }),
      200,
      'node_registered',
    );
    expect(await rowsOf(tokenId)).toEqual(['POST /api/agent/register 200']);

    expectEnvelope(await call('POST', '/agent/heartbeat', { token }), 200, 'heartbeat_recorded');
    expectEnvelope(await call('POST', '/agent/heartbeat', { token }), 200, 'heartbeat_recorded');
    const t = Date.now() - 30_000;
    const telemetry = await call('POST', '/agent/telemetry', { token, body: { samples: [sample(t, [poolSample(host.tank)], arcSample({ hits: 5 }))] } });
    expectEnvelope(telemetry, 200, 'telemetry_stored');
    const unchanged = await call('PUT', '/agent/inventory', { token, body: { inventory } });
    expectEnvelope(unchanged, 200, 'inventory_recorded');
    expect(unchanged.body.data.changed).toBe(false);
    expect(await rowsOf(tokenId)).toEqual(['POST /api/agent/register 200']);

    const changed = await call('PUT', '/agent/inventory', { token, body: { inventory: { ...inventory, cpus: inventory.cpus + 2 } } });
    expectEnvelope(changed, 200, 'inventory_recorded');
    expect(changed.body.data.changed).toBe(true);

    const task = await queueTask({ kind: 'host.probe', nodeId: host.nodeId, resource: `probe:${randomUUID()}`, payload: { sysctls: [] }, dispatch: false });
    expectEnvelope(await call('POST', `/agent/tasks/${task.id}/start`, { token }), 200, 'task_started');
    expectEnvelope(
      await call('POST', `/agent/tasks/${task.id}/progress`, { token, body: { attempt: 1, phase: 'reading', progress: 40 } }),
      200,
      'task_progress_recorded',
    );
    expectEnvelope(
      await call('POST', `/agent/tasks/${task.id}/finish`, { token, body: { attempt: 1, status: 'success', result: { values: {} } } }),
      200,
      'task_finished',
    );
    expect(await rowsOf(tokenId)).toEqual([
      'POST /api/agent/register 200',
      'PUT /api/agent/inventory 200',
      `POST /api/agent/tasks/{id}/start 200`,
      `POST /api/agent/tasks/{id}/finish 200`,
    ]);
  });

  test('every refused agent report is audited: a heartbeat before registration, a bad telemetry body, progress after the end', async () => {
    const nodeId = randomUUID();
    const { id: tokenId, token } = await agentToken(nodeId);
    expectEnvelope(await call('POST', '/agent/heartbeat', { token }), 404, 'node_not_registered');
    expectEnvelope(await call('POST', '/agent/telemetry', { token, body: { samples: [] } }), 400, 'validation_failed');
    expect(await rowsOf(tokenId)).toEqual(['POST /api/agent/heartbeat 404', 'POST /api/agent/telemetry 400']);

    const host = await createHost();
    const other = await agentToken(host.nodeId);
    const task = await queueTask({ kind: 'host.probe', nodeId: host.nodeId, resource: `probe:${randomUUID()}`, payload: { sysctls: [] }, dispatch: false });
    await call('POST', `/agent/tasks/${task.id}/start`, { token: other.token });
    await call('POST', `/agent/tasks/${task.id}/finish`, { token: other.token, body: { attempt: 1, status: 'success', result: { values: {} } } });
    expectEnvelope(
      await call('POST', `/agent/tasks/${task.id}/progress`, { token: other.token, body: { attempt: 1, phase: 'late', progress: 50 } }),
      409,
      'task_not_running',
    );
    expect((await rowsOf(other.id)).at(-1)).toBe('POST /api/agent/tasks/{id}/progress 409');
  });
});
