import { sql } from 'kysely';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { MAX_HOST_CPUS } from '#domain/inventory';
import { queueTask } from '../helpers/agent.ts';
import { arrangeNode, freeGuestId, guestRow, jailInv, setOnline, tasksOf } from './jail-setup.ts';

const path = (ctid: number | string) => `/jail/${ctid}/hardware/cpu`;

describe('E4 PUT /api/jail/{ctid}/hardware/cpu', () => {
  let operator: string;
  beforeAll(async () => {
    operator = await tokenFor('operator');
  });

  test('a stopped jail: persisted only, pinned to the least-used CPUs; the record has memory in bytes', async () => {
    const [a, b, c] = [await freeGuestId(), await freeGuestId(), await freeGuestId()];
    const node = await arrangeNode({
      cpus: 4,
      jails: [jailInv(a, { cpuSet: [0, 1] }), jailInv(b, { cpuSet: [0], state: 'running', jid: 3 }), jailInv(c, { memoryBytes: 512 * 2 ** 20 })],
    });
    // CPUs 0 (two jails) and 1 (one jail) are taken: 2 and 3 are the least used
    const res = await call('PUT', path(c), { token: operator, body: { cores: 2 } });
    expectEnvelope(res, 200, 'jail_cpu_updated');
    expect(res.body.data).toEqual({ cores: 2, cpuSet: [2, 3], ctId: c, memory: 512 * 2 ** 20, resourceLimits: true });
    const cfg = (await guestRow(c))!.config as any;
    expect(cfg).toMatchObject({ cores: 2, cpuSet: [2, 3], memoryBytes: 512 * 2 ** 20 });
    const [task] = await tasksOf(c);
    expect(task).toMatchObject({ kind: 'jail.apply-limits', node_id: node, status: 'queued' });
    expect(task.payload).toEqual({ ctid: c, name: `j${c}`, cpuSet: [2, 3], memoryBytes: 512 * 2 ** 20, applyNow: false });

    // jail a's own pinning does not count against it: others use CPU 0 once (b), 2 and 3 once (c), 1 never
    // → 1 first, then the lowest of the ties: 0 and 2
    const again = await call('PUT', path(a), { token: operator, body: { cores: 3 } });
    expect(again.body.data.cpuSet).toEqual([0, 1, 2]);
  });

  test('a jail with a memory limit on a node without RACCT: 409 capability_missing naming the loader tunable; nothing changes', async () => {
    const [m, plain] = [await freeGuestId(), await freeGuestId()];
    const caps = { osrelease: '14.3-RELEASE', osreldate: 1403000, racct: false, zfsVersion: null, libvirtVersion: null };
    const node = await arrangeNode({ cpus: 4, jails: [jailInv(m, { memoryBytes: 2 ** 30 }), jailInv(plain)], capabilities: caps });
    const before = await guestRow(m);
    const res = await call('PUT', path(m), { token: operator, body: { cores: 1 } });
    expectEnvelope(res, 409, 'capability_missing');
    expect(res.body.error).toBe('memory limits need RACCT: add kern.racct.enable=1 to /boot/loader.conf and reboot the host');
    expect((await guestRow(m))!.config).toEqual(before!.config);
    expect(await tasksOf(m)).toHaveLength(0);
    // a CPU limit alone does not need RACCT
    expectEnvelope(await call('PUT', path(plain), { token: operator, body: { cores: 1 } }), 200, 'jail_cpu_updated');
    // once the host reports RACCT on (loader.conf set, rebooted), the same request is accepted
    await testDb().updateTable('nodes').set({ inventory: sql`jsonb_set(inventory, '{capabilities,racct}', 'true')` }).where('id', '=', node).execute();
    expectEnvelope(await call('PUT', path(m), { token: operator, body: { cores: 1 } }), 200, 'jail_cpu_updated');
  });

  test('a running jail is applied at once (applyNow), which needs its node online: offline → 503, nothing changes', async () => {
    const r = await freeGuestId();
    const node = await arrangeNode({ cpus: 8, jails: [jailInv(r, { state: 'running', jid: 9 })] });
    let res = await call('PUT', path(r), { token: operator, body: { cores: 1 } });
    expectEnvelope(res, 200);
    expect(res.body.data).toEqual({ cores: 1, cpuSet: [0], ctId: r, memory: 0, resourceLimits: true });
    expect((await tasksOf(r)).at(-1)!.payload).toMatchObject({ applyNow: true, cpuSet: [0] });

    await setOnline(node, false);
    const before = await guestRow(r);
    res = await call('PUT', path(r), { token: operator, body: { cores: 4 } });
    expectEnvelope(res, 503, 'node_offline');
    expect(res.body.error).toContain(node);
    expect((await guestRow(r))!.config).toEqual(before!.config);
    expect(await tasksOf(r)).toHaveLength(1);
  });

  test('a stopped jail on an offline node is still persisted (its task waits for the agent)', async () => {
    const s = await freeGuestId();
    const node = await arrangeNode({ online: false, jails: [jailInv(s)] });
    const res = await call('PUT', path(s), { token: operator, body: { cores: 4 } });
    expectEnvelope(res, 200);
    expect(res.body.data.cpuSet).toEqual([0, 1, 2, 3]);
    expect((await tasksOf(s))[0]).toMatchObject({ node_id: node, status: 'queued' });
  });

  test('cores must be 1..the host`s CPUs: 400 names body.cores and the bound', async () => {
    const j = await freeGuestId();
    await arrangeNode({ cpus: 4, jails: [jailInv(j)] });
    let res = await call('PUT', path(j), { token: operator, body: { cores: 5 } });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toMatch(/^body\.cores: must be <= 4/);
    for (const bad of [0, -1, 1.5, '2', null]) {
      res = await call('PUT', path(j), { token: operator, body: { cores: bad } });
      expectEnvelope(res, 400);
      expect(res.body.error).toMatch(/^body\.cores: /);
    }
    res = await call('PUT', path(j), { token: operator, body: {} });
    expect(res.body.error).toBe('body.cores: is required');
    res = await call('PUT', path(j), { token: operator, body: { cores: 1, memory: 5 } });
    expect(res.body.error).toBe('body.memory: is not an accepted field');
    res = await call('PUT', path('x'), { token: operator, body: { cores: 1 } });
    expect(res.body.error).toMatch(/^path\.ctid: /);
    expect(await tasksOf(j)).toHaveLength(0);
  });

  test('a CPU count no host has is refused in the agent’s report (400 naming it), and one stored earlier reads as not reported (503)', async () => {
    for (const cpus of [3e9, 2e8, MAX_HOST_CPUS + 1]) {
      const r = await freeGuestId();
      const node = await arrangeNode({ cpus: 4, jails: [jailInv(r)] });
      const agent = await tokenFor('agent', node);
      const report = await call('PUT', '/agent/inventory', {
        token: agent,
        body: { inventory: { hostname: 'h', os: 'FreeBSD 14.3-RELEASE', cpus, memoryBytes: 1 } },
      });
      expectEnvelope(report, 400, 'validation_failed');
      expect(report.body.error).toContain('body.inventory.cpus');
      // an inventory stored before the bound existed
      await testDb()
        .updateTable('nodes')
        .set({ inventory: sql`jsonb_set(inventory, '{cpus}', ${JSON.stringify(cpus)}::jsonb)` })
        .where('id', '=', node)
        .execute();
      const res = await call('PUT', path(r), { token: operator, body: { cores: 2 } });
      expectEnvelope(res, 503, 'node_inventory_unavailable');
      expect(await tasksOf(r)).toHaveLength(0);
    }
  });

  test('404 unknown jail, 409 during a migration, 401, 403', async () => {
    expectEnvelope(await call('PUT', path(await freeGuestId()), { token: operator, body: { cores: 1 } }), 404, 'jail_not_found');
    const j = await freeGuestId();
    const node = await arrangeNode({ jails: [jailInv(j)] });
    await queueTask({
      kind: 'jail.migrate',
      nodeId: node,
      resource: `jail:${j}`,
      payload: { ctid: j, name: `j${j}`, dataset: 'x', target: { nodeId: node, address: '127.0.0.1', hostKeys: [] } },
      dispatch: false,
    });
    const res = await call('PUT', path(j), { token: operator, body: { cores: 1 } });
    expectEnvelope(res, 409, 'jail_busy');
    expect(((await guestRow(j))!.config as any).cores).toBeNull();
    expectEnvelope(await call('PUT', path(j), { token: null, body: { cores: 1 } }), 401);
    expectEnvelope(await call('PUT', path(j), { token: await tokenFor('viewer'), body: { cores: 1 } }), 403);
  });
});
