import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import { streamHeads } from '#domain/telemetry/cursors';

/**
 * E7, E11 and E14 end to end with a real agent process on a simulated FreeBSD host: HTTP → store + task →
 * queue → agent → zpool / sysctl on the host → task result → inventory → store; and the agent's telemetry
 * samples → POST /api/agent/telemetry → E14.
 */
const GB = 1000 ** 3;
let agent: TestAgent;
let sim: HostSimulator;
let poolGuid: string;

const host = () =>
  testHost({
    disks: ['ada0', 'ada1', 'ada2', 'ada3', 'ada4'].map((name) => ({ name, sizeBytes: 100 * GB })),
    pools: [
      {
        name: 'tank',
        vdevs: [
          {
            type: 'mirror',
            children: [
              { type: 'disk', name: 'ada1' },
              { type: 'disk', name: 'ada2' },
            ],
          },
        ],
        allocatedBytes: 20 * GB,
        io: { readOps: 120, writeOps: 60, readBytes: 4e6, writeBytes: 2e6, readWaitNs: 250_000, writeWaitNs: 500_000 },
      },
    ],
    sysctls: [
      { name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false },
      { name: 'kern.maxfiles', type: 'integer', value: '32768', writable: true, description: 'Maximum number of files' },
      { name: 'kern.ipc.somaxconn', type: 'integer', value: '128', writable: true },
    ],
    arc: { sizeBytes: 4 * 1024 ** 3, targetBytes: 4 * 1024 ** 3, minBytes: 512 * 1024 ** 2, maxBytes: 6 * 1024 ** 3, hitRatio: 0.9, accessesPerSecond: 2000 },
  });

const sysctl = async (name: string) => (await sim.run(['sysctl', '-n', name])).stdout.trim();
const leavesOf = (state: Awaited<ReturnType<typeof poolOnHost>>) => JSON.stringify(state);
const poolOnHost = () => sim.state((s) => s.pools.find((p) => p.name === 'tank')!);

beforeAll(async () => {
  agent = await startTestAgent({
    host: host(),
    env: { HM_SIM_RESILVER_MS: '3000', HM_RESILVER_POLL_MS: '150', HM_TELEMETRY_INTERVAL: '1', HM_TELEMETRY_BATCH_INTERVAL: '3' },
  });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
  const pool = await waitUntil('the pool in the store', () => testDb().selectFrom('pools').selectAll().where('node_id', '=', agent.nodeId).executeTakeFirst());
  poolGuid = pool.guid;
}, 60_000);

describe('E7 with the agent', () => {
  test('the inventory projected the pool, its devices with GUIDs and the free disks', async () => {
    const devices = await testDb().selectFrom('pool_devices').selectAll().where('pool_guid', '=', poolGuid).execute();
    expect(
      devices
        .filter((d) => d.leaf)
        .map((d) => d.name)
        .sort(),
    ).toEqual(['ada1', 'ada2']);
    expect(devices.every((d) => d.guid && /^\d+$/.test(d.guid))).toBe(true);
    const disks = await testDb().selectFrom('node_disks').select('name').where('node_id', '=', agent.nodeId).execute();
    expect(disks.map((d) => d.name).sort()).toEqual(['ada0', 'ada3', 'ada4']);
  });

  test('a replacement resilvers with progress, ends success, and host and store show the new device', async () => {
    const res = await call('POST', `/zfs/pools/${poolGuid}/replace-device`, { body: { old: 'ada1', new: 'ada3' }, token: await tokenFor('operator') });
    expectEnvelope(res, 202, 'device_replacement_queued');
    const id = res.body.data.id;
    // a second replacement of the same pool while this one runs
    const busy = await call('POST', `/zfs/pools/${poolGuid}/replace-device`, { body: { old: 'ada2', new: 'ada4' }, token: await tokenFor('operator') });
    expectEnvelope(busy, 409, 'resource_busy');

    const seen = new Set<string>();
    const task = await waitUntil(
      `task ${id} to finish`,
      async () => {
        const t = await testDb().selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        seen.add(`${t.phase}:${t.progress}`);
        return ['success', 'failed', 'interrupted'].includes(t.status) ? t : null;
      },
      30_000,
      50,
    );
    expect(task.error).toBe('');
    expect(task.status).toBe('success');
    expect(task.progress).toBe(100);
    // the resilver's "% done" came through as progress on the way
    expect([...seen].some((s) => /^resilvering:(\d+)$/.test(s) && Number(s.split(':')[1]) < 100)).toBe(true);
    expect((task.result as { scan: string }).scan).toMatch(/^resilvered .* with 0 errors/);

    const onHost = leavesOf(await poolOnHost());
    expect(onHost).toContain('"ada3"');
    expect(onHost).not.toContain('"ada1"');
    expect(await sim.run(['zpool', 'status', 'tank']).then((r) => r.stdout)).toMatch(/ada3\s+ONLINE/);

    await waitUntil('the store to show ada3 in the pool', async () => {
      const leaves = await testDb().selectFrom('pool_devices').select('name').where('pool_guid', '=', poolGuid).where('leaf', '=', true).execute();
      return (
        leaves
          .map((l) => l.name)
          .sort()
          .join() === 'ada2,ada3'
      );
    });
    const disks = await testDb().selectFrom('node_disks').select('name').where('node_id', '=', agent.nodeId).execute();
    expect(disks.map((d) => d.name).sort()).toEqual(['ada0', 'ada1', 'ada4']);
    // ada3 is now in use: replacing with it again is refused by the control plane
    const again = await call('POST', `/zfs/pools/${poolGuid}/replace-device`, { body: { old: 'ada2', new: 'ada3' }, token: await tokenFor('operator') });
    expectEnvelope(again, 409, 'device_in_use');
  }, 60_000);

  test('a replacement zpool refuses ends failed with zpool’s own message and raises a notification', async () => {
    const before = await call('GET', '/notifications/count', { token: await tokenFor('viewer') });
    const res = await call('POST', `/zfs/pools/${poolGuid}/replace-device`, { body: { old: 'ada2', new: 'ada9' }, token: await tokenFor('operator') });
    expectEnvelope(res, 202);
    const task = await waitForTask(res.body.data.id, ['success', 'failed'], 30_000);
    expect(task.status).toBe('failed');
    expect(task.error).toBe("cannot open 'ada9': no such device in /dev\nmust be a full path or shorthand device name");
    const note = await testDb()
      .selectFrom('notifications')
      .selectAll()
      .where('node_id', '=', agent.nodeId)
      .where('kind', '=', 'task_failed')
      .where('title', 'like', `Task ${task.id} %`)
      .executeTakeFirstOrThrow();
    expect(note.body).toContain("cannot open 'ada9'");
    const after = await call('GET', '/notifications/count', { token: await tokenFor('viewer') });
    expect(after.body.data.active).toBeGreaterThan(before.body.data.active);
    // the pool is unchanged
    expect(leavesOf(await poolOnHost())).toContain('"ada2"');
  }, 60_000);
});

describe('E11 with the agent', () => {
  test('the setting is applied with sysctl on the host and the inventory follows', async () => {
    const res = await call('PUT', `/system/tunables?nodeId=${agent.nodeId}`, {
      body: { name: 'kern.maxfiles', value: '65536' },
      token: await tokenFor('admin'),
    });
    expectEnvelope(res, 200, 'tunable_set');
    expect(res.body.data).toMatchObject({ name: 'kern.maxfiles', value: '65536', previousValue: '32768', type: 'integer' });
    const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
    expect(task.error).toBe('');
    expect(task.status).toBe('success');
    expect(task.result).toEqual({ name: 'kern.maxfiles', old: '32768', new: '65536' });
    expect(await sysctl('kern.maxfiles')).toBe('65536');
    await waitUntil('the reported tunable to follow', async () => {
      const t = await testDb()
        .selectFrom('tunables')
        .select('value')
        .where('node_id', '=', agent.nodeId)
        .where('name', '=', 'kern.maxfiles')
        .executeTakeFirst();
      return t?.value === '65536';
    });
  });

  test('the reported read-only tunables are refused before any task', async () => {
    const res = await call('PUT', `/system/tunables?nodeId=${agent.nodeId}`, { body: { name: 'kern.ostype', value: 'Linux' }, token: await tokenFor('admin') });
    expectEnvelope(res, 400, 'tunable_read_only');
  });

  test('persisted settings are applied again when the agent starts (after a reboot reset them)', async () => {
    expectEnvelope(
      await call('PUT', `/system/tunables?nodeId=${agent.nodeId}`, { body: { name: 'kern.ipc.somaxconn', value: '1024' }, token: await tokenFor('admin') }),
      200,
    );
    await waitUntil('somaxconn applied', async () => (await sysctl('kern.ipc.somaxconn')) === '1024');
    expect(await agent.stop()).toBe(0);
    // the host "reboots": both knobs back at their defaults
    await sim.run(['sysctl', 'kern.maxfiles=32768']);
    await sim.run(['sysctl', 'kern.ipc.somaxconn=128']);
    expect(await sysctl('kern.maxfiles')).toBe('32768');
    const started = new Date();
    agent = await agent.restart();
    await agent.ready();
    expect(await sysctl('kern.maxfiles')).toBe('65536');
    expect(await sysctl('kern.ipc.somaxconn')).toBe('1024');
    const reapplied = await testDb()
      .selectFrom('tasks')
      .select(['kind', 'status', 'payload', 'requested_by'])
      .where('node_id', '=', agent.nodeId)
      .where('kind', '=', 'tunable.apply')
      .where('created_at', '>=', started)
      .orderBy('id')
      .execute();
    expect(reapplied.map((t) => [t.requested_by, t.status, (t.payload as { name: string }).name])).toEqual([
      ['agent-start', 'success', 'kern.ipc.somaxconn'],
      ['agent-start', 'success', 'kern.maxfiles'],
    ]);
  }, 60_000);
});

describe('E14 with the agent', () => {
  test("the running agent's samples appear in the delta: pool points and ARC rows with interval ratios", async () => {
    const start = await streamHeads(testDb());
    const viewer = await tokenFor('viewer');
    const delta = await waitUntil(
      'pool points and ARC rows from the agent',
      async () => {
        const res = await call('GET', `/zfs/dashboard/history/delta?poolAfter=${start.pool}&arcAfter=${start.arc}&nodeId=${agent.nodeId}`, { token: viewer });
        const d = res.body.data;
        return d.pools.length === 1 && d.pools[0].points.length >= 2 && d.arc.length >= 2 ? d : null;
      },
      30_000,
      250,
    );
    expect(delta.resetRequired).toBe(false);
    expect(delta.pools[0]).toMatchObject({ guid: poolGuid, name: 'tank' });
    const p = delta.pools[0].points[0];
    expect(p).toMatchObject({ health: 'ONLINE', intervalSeconds: 1, sampleCount: 1 });
    expect(p.size).toBeGreaterThan(0);
    expect(p.readIOPS).toBeGreaterThan(0);
    expect(p.readLatencyNanos).toBeGreaterThan(0);
    const a = delta.arc[delta.arc.length - 1];
    expect(a.hitRatio).toBeGreaterThan(0.5);
    expect(a.hitRatio).toBeLessThan(1);
    expect(a.size).toBeGreaterThan(2 * 1024 ** 3);
    expect(a.maxSize).toBe(6 * 1024 ** 3);
    // and with the pool as filter
    const one = await call('GET', `/zfs/dashboard/history/delta?poolAfter=${start.pool}&arcAfter=${start.arc}&poolGuid=${poolGuid}`, { token: viewer });
    expectEnvelope(one, 200);
    expect(one.body.data.pools.map((s: { guid: string }) => s.guid)).toEqual([poolGuid]);
  }, 40_000);
});
