import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { queueTask } from '../helpers/agent.ts';
import { applyJailInventory } from '#domain/jails/projection';
import { inTransaction } from '#store/tx';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { arrangeNode, freeGuestId, guestRow, jailInv } from './jail-setup.ts';

const project = (nodeId: string, jails: Parameters<typeof applyJailInventory>[2]) => inTransaction(testDb(), (trx) => applyJailInventory(trx, nodeId, jails));
const report = (nodeId: string, jails: unknown[]) =>
  testDb()
    .updateTable('nodes')
    .set({ inventory: JSON.stringify({ cpus: 4, jails }) })
    .where('id', '=', nodeId)
    .execute();

describe('jail inventory projection (what the agent endpoints run on every report)', () => {
  test('a new jail is inserted with its host configuration as the persisted one; later reports keep what E3/E4 persisted', async () => {
    const id = await freeGuestId();
    const hooks = { ...noHooks(), poststart: { enabled: true, script: 'echo up' } };
    const node = await arrangeNode({ jails: [jailInv(id, { state: 'running', jid: 3, hooks, cpuSet: [1], memoryBytes: 1024 })] });
    let row = (await guestRow(id))!;
    expect(row).toMatchObject({ type: 'jail', node_id: node, name: `j${id}`, state: 'running' });
    expect(row.config).toMatchObject({ hooks, cores: 1, cpuSet: [1], memoryBytes: 1024, jid: 3 });

    const res = await call('PUT', `/jail/${id}/options/lifecycle-hooks`, { token: await tokenFor('operator'), body: { hooks: noHooks() } });
    expectEnvelope(res, 200);
    // the host has not applied it yet and reports the old hooks, stopped now: state follows, hooks stay persisted
    await project(node, [jailInv(id, { state: 'stopped', hooks, cpuSet: [1] })]);
    row = (await guestRow(id))!;
    expect(row.state).toBe('stopped');
    expect((row.config as any).hooks).toEqual(noHooks());
    expect((row.config as any).host.hooks).toEqual(hooks);
    expect((row.config as any).jid).toBeNull();
  });

  test('undefined (collector failed) changes nothing; a jail the host no longer reports is removed unless a task runs on it', async () => {
    const [x, y] = [await freeGuestId(), await freeGuestId()];
    const node = await arrangeNode({ jails: [jailInv(x), jailInv(y)] });
    await project(node, undefined);
    expect(await guestRow(x)).toBeDefined();
    await queueTask({ kind: 'jail.apply-hooks', nodeId: node, resource: `jail:${y}`, payload: { ctid: y, name: `j${y}`, hooks: noHooks() }, dispatch: false });
    await project(node, []);
    expect(await guestRow(x)).toBeUndefined();
    expect(await guestRow(y)).toBeDefined();
  });

  test('guest ids are cluster-wide: another node reporting the same id is skipped while the owner still has it; it follows the jail once the owner does not', async () => {
    const id = await freeGuestId();
    const owner = await arrangeNode({ jails: [jailInv(id)] });
    await report(owner, [jailInv(id)]);
    const other = await arrangeNode();
    expect(await project(other, [jailInv(id, { name: 'intruder' })])).toEqual([id]);
    expect((await guestRow(id))!).toMatchObject({ node_id: owner, name: `j${id}` });

    // the owner's host no longer has it (e.g. a migration whose success report was lost): it moved
    await report(owner, []);
    expect(await project(other, [jailInv(id, { state: 'running', jid: 8 })])).toEqual([]);
    expect((await guestRow(id))!).toMatchObject({ node_id: other, state: 'running' });

    // a VM id is never taken over by a jail
    const vmId = await freeGuestId();
    await testDb().insertInto('guests').values({ id: vmId, type: 'vm', node_id: owner, name: 'vm', state: 'running', config: '{}' }).execute();
    expect(await project(other, [jailInv(id, { state: 'running', jid: 8 }), jailInv(vmId)])).toEqual([vmId]);
    expect((await guestRow(vmId))!.type).toBe('vm');
  });
});

describe('preconditions hold under races (checked in the transaction that writes)', () => {
  test('two migrations of one jail at once: exactly one is queued', async () => {
    const id = await freeGuestId();
    await arrangeNode({ jails: [jailInv(id)] });
    const target = await arrangeNode();
    const operator = await tokenFor('operator');
    const res = await Promise.all([1, 2, 3].map(() => call('POST', `/jail/${id}/migrations`, { token: operator, body: { targetNodeUuid: target } })));
    expect(res.map((r) => r.status).sort()).toEqual([202, 409, 409]);
    const tasks = await testDb().selectFrom('tasks').select('kind').where('resource', '=', `jail:${id}`).execute();
    expect(tasks).toEqual([{ kind: 'jail.migrate' }]);
  });

  test('a hooks change racing a migration: never both', async () => {
    const id = await freeGuestId();
    await arrangeNode({ jails: [jailInv(id)] });
    const target = await arrangeNode();
    const operator = await tokenFor('operator');
    const [h, m] = await Promise.all([
      call('PUT', `/jail/${id}/options/lifecycle-hooks`, { token: operator, body: { hooks: noHooks() } }),
      call('POST', `/jail/${id}/migrations`, { token: operator, body: { targetNodeUuid: target } }),
    ]);
    expect([h.status, m.status].filter((s) => s < 300)).toHaveLength(1);
    expect([h.status, m.status].filter((s) => s === 409)).toHaveLength(1);
  });
});
