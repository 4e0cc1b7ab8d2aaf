import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { insertNode, queueTask, stackQueue } from '../helpers/agent.ts';
import { finishTask, startTask, sweepTasks } from '#domain/task-transitions';
import { inTransaction } from '#store/tx';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import { freeRids, insertVm } from './vm-fixtures.ts';
import { sampleResultOf } from '../helpers/task-results.ts';

/**
 * Cloud-init user data / meta-data and the VNC password are write-only secrets: viewers never read them, the
 * VNC password is returned to nobody, the node inventory never echoes them, and a task that ended in any way
 * keeps none of them in its payload.
 */
const USER_DATA = '#cloud-config\npassword: hunter2-USERDATA\nssh_authorized_keys: [ "ssh-ed25519 AAAASECRETKEY ops@x" ]\n';
const META = 'instance-id: i-META-SECRET\n';

describe('VM secrets are write-only', () => {
  let node: string;
  let agent: string;
  beforeAll(async () => {
    stackQueue();
    node = await insertNode(randomUUID(), { status: 'member' });
    agent = await tokenFor('agent', node);
  });

  const setCloudInit = async (rid: number) =>
    expectEnvelope(
      await call('PUT', `/vm/${rid}/options/cloud-init`, { token: await tokenFor('operator'), body: { data: USER_DATA, metadata: META, networkConfig: '' } }),
      200,
    );
  const setVnc = async (rid: number) =>
    expectEnvelope(
      await call('PUT', `/vm/${rid}/hardware/vnc`, {
        token: await tokenFor('operator'),
        body: { vncEnabled: true, vncResolution: '1024x768', vncWait: false, vncPassword: 'VNC-SECRET' },
      }),
      200,
    );
  const taskOf = async (rid: number, kind: string) =>
    testDb().selectFrom('tasks').selectAll().where('resource', '=', `vm:${rid}`).where('kind', '=', kind).orderBy('id', 'desc').executeTakeFirstOrThrow();

  test('GET /vm/{rid}: a viewer sees only that cloud-init is set; an operator reads it back; nobody reads the VNC password', async () => {
    const rid = await insertVm({ nodeId: node });
    await setCloudInit(rid);
    const asViewer = await call('GET', `/vm/${rid}`, { token: await tokenFor('viewer') });
    expectEnvelope(asViewer, 200, 'vm');
    expect(asViewer.body.data.options.cloudInit).toEqual({ data: null, dataSet: true, metadata: null, metadataSet: true, networkConfig: '' });
    expect(asViewer.text).not.toMatch(/hunter2|SECRETKEY|META-SECRET/);
    const asOperator = await call('GET', `/vm/${rid}`, { token: await tokenFor('operator') });
    expect(asOperator.body.data.options.cloudInit).toEqual({ data: USER_DATA, dataSet: true, metadata: META, metadataSet: true, networkConfig: '' });

    const other = await insertVm({ nodeId: node });
    await setVnc(other);
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const res = await call('GET', `/vm/${other}`, { token: await tokenFor(role) });
      expect(res.body.data.options.vnc).toMatchObject({ auth: true, passwordSet: true });
      expect(res.text).not.toContain('VNC-SECRET');
    }
  });

  test('an inventory carrying a VNC password is refused (400 naming it, nothing stored); the node inventory the API returns echoes no cloud-init secret', async () => {
    const id = randomUUID();
    const token = await tokenFor('agent', id);
    const [rid] = await freeRids(1);
    const options = {
      ...defaultVmOptions(),
      cloudInit: { data: USER_DATA, metadata: META, networkConfig: '' },
      vnc: { ...defaultVmOptions().vnc, enabled: true, port: 5911, auth: true, password: 'VNC-SECRET' },
    };
    const inventory = {
      hostname: 'h',
      os: 'FreeBSD 14.1-RELEASE',
      cpus: 2,
      memoryBytes: 1 << 30,
      vms: [{ rid, domain: String(rid), name: `vm-${rid}`, state: 'shut off', options, macs: [], datasets: [] }],
    };
    const register = (inv: unknown) =>
      call('POST', '/agent/register', { token, body: { id, name: 'h', ip: '192.0.2.10', inventory: inv, heartbeatIntervalS: 5, agentVersion: '0.1.0' } });
    // the wire's inventory has no password field: an agent never reports one (libvirt's XML keeps it), so one that does is refused
    const refused = await register(inventory);
    expectEnvelope(refused, 400, 'validation_failed');
    expect(refused.body.error).toMatch(/^body\.inventory\.vms\[0\]\.options\.vnc\.password: /);
    expect(refused.text).not.toContain('VNC-SECRET');
    expect(await testDb().selectFrom('nodes').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    const { password: _password, ...vnc } = options.vnc;
    const reg = await register({ ...inventory, vms: [{ ...inventory.vms[0]!, options: { ...options, vnc } }] });
    expect(reg.status).toBe(201);
    for (const role of ['viewer', 'admin'] as const) {
      const res = await call('GET', `/cluster/nodes/${id}`, { token: await tokenFor(role) });
      expectEnvelope(res, 200, 'node_found');
      expect(res.text).not.toMatch(/hunter2|SECRETKEY|META-SECRET|VNC-SECRET/);
      expect(res.body.data.inventory.vms[0].options.cloudInit).toMatchObject({ data: null, dataSet: true });
      expect(res.body.data.inventory.vms[0].options.vnc).toMatchObject({ passwordSet: true });
    }
    const stored = await testDb().selectFrom('nodes').select('inventory').where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored.inventory)).not.toContain('VNC-SECRET');
  });

  test('a task that ends keeps no secret in its payload: success, failure, interruption', async () => {
    const ended: Array<[string, number]> = [];
    for (const outcome of ['success', 'failed', 'interrupted'] as const) {
      const rid = await insertVm({ nodeId: node });
      await setCloudInit(rid);
      const task = await taskOf(rid, 'vm.cloud-init');
      expect(task.payload).toMatchObject({ data: USER_DATA, metadata: META }); // the agent still needs them
      expectEnvelope(await call('POST', `/agent/tasks/${task.id}/start`, { token: agent }), 200);
      if (outcome === 'interrupted') expectEnvelope(await call('POST', '/agent/tasks/interrupt-stale', { token: agent }), 200);
      else
        expectEnvelope(
          await call('POST', `/agent/tasks/${task.id}/finish`, {
            token: agent,
            body: {
              attempt: 1,
              status: outcome,
              error: outcome === 'failed' ? 'no' : undefined,
              result: outcome === 'success' ? await sampleResultOf(task.id) : undefined,
            },
          }),
          200,
        );
      ended.push([outcome, task.id]);
    }
    const rid = await insertVm({ nodeId: node });
    await setVnc(rid);
    const vnc = await taskOf(rid, 'vm.vnc');
    expectEnvelope(await call('POST', `/agent/tasks/${vnc.id}/start`, { token: agent }), 200);
    expectEnvelope(await call('POST', `/agent/tasks/${vnc.id}/finish`, { token: agent, body: { attempt: 1, status: 'failed', error: 'x' } }), 200);
    ended.push(['vnc failed', vnc.id]);
    for (const [outcome, id] of ended) {
      const row = await testDb().selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect([outcome, row.status]).toEqual([outcome, outcome === 'vnc failed' ? 'failed' : outcome]);
      expect([outcome, JSON.stringify(row.payload)]).not.toEqual([outcome, expect.stringMatching(/hunter2|META-SECRET|VNC-SECRET/)]);
      expect(row.payload).toMatchObject({ rid: expect.any(Number) }); // the rest of the payload stays
    }
  });

  test('a task the sweeper fails (never picked up) keeps no VNC password', async () => {
    const rid = await insertVm({ nodeId: node });
    const task = await queueTask({
      kind: 'vm.vnc',
      nodeId: node,
      resource: `vm:${rid}`,
      dispatch: false,
      payload: { rid, domain: String(rid), enabled: true, bind: '127.0.0.1', port: 5912, resolution: '1024x768', wait: false, password: 'VNC-SECRET' },
    });
    await new Promise((r) => setTimeout(r, 1100));
    const swept = await sweepTasks(testDb(), { nodeId: node, unsentAfterS: 1, maxSends: 0 });
    expect(swept.failed).toContain(task.id);
    const row = await testDb().selectFrom('tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(JSON.stringify(row.payload)).not.toContain('VNC-SECRET');
  });

  test('a queued configuration task a newer one overtook (superseded, failed) keeps no VNC password', async () => {
    const rid = await insertVm({ nodeId: node });
    const payload = (password: string) => ({
      rid,
      domain: String(rid),
      enabled: true,
      bind: '127.0.0.1',
      port: 5913,
      resolution: '1024x768',
      wait: false,
      password,
    });
    const older = await queueTask({ kind: 'vm.vnc', nodeId: node, resource: `vm:${rid}`, dispatch: false, payload: payload('VNC-OLDER-SECRET') });
    const newer = await queueTask({ kind: 'vm.vnc', nodeId: node, resource: `vm:${rid}`, dispatch: false, payload: payload('VNC-NEWER-SECRET') });
    await inTransaction(testDb(), (trx) => startTask(trx, node, newer.id));
    // while the newer one runs, the older one waits for it (how it ends depends on how the newer one does)
    const waits = await inTransaction(testDb(), (trx) => startTask(trx, node, older.id));
    expect(waits).toMatchObject({ run: false, waitFor: { taskId: newer.id } });
    const result = await sampleResultOf(newer.id);
    await inTransaction(testDb(), (trx) => finishTask(trx, node, newer.id, { attempt: 1, status: 'success', result }));
    const answer = await inTransaction(testDb(), (trx) => startTask(trx, node, older.id));
    expect(answer.run).toBe(false);
    const row = await testDb().selectFrom('tasks').selectAll().where('id', '=', older.id).executeTakeFirstOrThrow();
    expect({ status: row.status, error: row.error }).toEqual({ status: 'failed', error: `superseded by task ${newer.id}` });
    expect(JSON.stringify(row.payload)).not.toContain('VNC-OLDER-SECRET');
  });
});
