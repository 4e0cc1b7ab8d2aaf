// @tier stack
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { testDb } from '../helpers/api.ts';
import { applyJailInventory } from '#domain/jails/projection';
import { applyVmInventory } from '#domain/vms/projection';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import type { VmInventory } from '#shared/domain/vms/types';
import { inTransaction } from '#store/tx';
import { loadSeed } from '#shared/seed/load';
import { validateSeed } from '#shared/seed/validate';
import { queueTask } from '../helpers/agent.ts';
import { arrangeNode, freeGuestId, guestRow, jailInv } from '../http/jail-setup.ts';

/** A pending node's guests are provisional until E16 admits it: members' guests outrank them. */
const vm = (rid: number): VmInventory => ({
  rid,
  domain: String(rid),
  name: `vm${rid}`,
  state: 'shut off',
  options: defaultVmOptions(),
  macs: [],
  datasets: [],
});

test('a member reporting a jail or VM a pending node holds takes it; not while a task runs on it, and never from a member', async () => {
  const [j, v, busy] = [await freeGuestId(), await freeGuestId(), await freeGuestId()];
  const pending = await arrangeNode({ status: 'pending', jails: [jailInv(j), jailInv(busy)] });
  await applyVmInventory(testDb(), pending, [vm(v)]);
  expect((await guestRow(v))!.node_id).toBe(pending);
  await queueTask({
    kind: 'jail.apply-hooks',
    nodeId: pending,
    resource: `jail:${busy}`,
    payload: { ctid: busy, name: `j${busy}`, hooks: jailInv(busy).hooks },
    dispatch: false,
  });

  // the member's agent registers: its inventory lists both jails and is projected
  const member = await arrangeNode({ jails: [jailInv(j), jailInv(busy)] });
  expect(await inTransaction(testDb(), (trx) => applyJailInventory(trx, member, [jailInv(j), jailInv(busy)]))).toEqual([busy]);
  expect((await guestRow(j))!.node_id).toBe(member);
  expect((await guestRow(busy))!.node_id).toBe(pending);
  expect(await applyVmInventory(testDb(), member, [vm(v)])).toEqual([]);
  expect((await guestRow(v))!.node_id).toBe(member);

  // the pending node reporting them again takes nothing back
  expect(await inTransaction(testDb(), (trx) => applyJailInventory(trx, pending, [jailInv(j), jailInv(busy)]))).toEqual([j]);
  expect((await applyVmInventory(testDb(), pending, [vm(v)])).join()).toContain(`guest id ${v} is already vm ${v} on node ${member}`);
  expect((await guestRow(j))!.node_id).toBe(member);
  expect((await guestRow(v))!.node_id).toBe(member);
});

test("a seed may give a pending host a member's guest id (E16 reports it); the pending host claims nothing", async () => {
  const host = JSON.parse(readFileSync('shared/seed/demo.json', 'utf8')).hosts['7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01'];
  const [memberId, pendingId] = [randomUUID(), randomUUID()];
  const id = await freeGuestId();
  const hostWith = (name: string) => ({ ...host, jails: [{ ctid: id, name, dataset: `tank/jails/${id}` }], vms: [] });
  const seed = validateSeed(
    {
      nodes: [
        { id: memberId, name: `m-${memberId.slice(0, 8)}`, ip: '127.0.0.41' },
        { id: pendingId, name: `p-${pendingId.slice(0, 8)}`, ip: '127.0.0.42', status: 'pending' },
      ],
      hosts: { [memberId]: hostWith('a'), [pendingId]: hostWith('b') },
    },
    'pending-clash',
  );
  // a stale row on the pending node: loading the seed gives it to the member, never the other way
  await testDb().insertInto('nodes').values({ id: pendingId, name: 'stale', ip: '', status: 'pending', inventory: '{}' }).execute();
  await testDb().insertInto('guests').values({ id, type: 'jail', node_id: pendingId, name: 'b', state: 'stopped', config: '{}' }).execute();
  await loadSeed(testDb(), seed, 'pending-clash');
  expect((await guestRow(id))!.node_id).toBe(memberId);
  expect(await testDb().selectFrom('nodes').select(['id', 'status']).where('id', 'in', [memberId, pendingId]).orderBy('status').execute()).toEqual([
    { id: memberId, status: 'member' },
    { id: pendingId, status: 'pending' },
  ]);
});

test("the demo seed: fbsd-02 is a pending simulated host whose jail 102 is also fbsd-01's", () => {
  const demo = JSON.parse(readFileSync('shared/seed/demo.json', 'utf8'));
  const fbsd02 = demo.nodes.find((n: { name: string }) => n.name === 'fbsd-02');
  expect(fbsd02).toMatchObject({ status: 'pending', ip: '127.0.0.12' });
  const ids = (nodeId: string) => (demo.hosts[nodeId].jails as Array<{ ctid: number }>).map((j) => j.ctid);
  expect(ids(fbsd02.id)).toContain(102);
  expect(ids('7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01')).toContain(102);
});
