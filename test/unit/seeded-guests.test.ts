// @tier stack
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { testDb } from '../helpers/api.ts';
import { applyJailInventory } from '#domain/jails/projection';
import { inTransaction } from '#store/tx';
import { loadSeed, SeedError } from '#shared/seed/load';
import { validateSeed } from '#shared/seed/validate';
import { arrangeNode, freeGuestId, guestRow, jailInv } from '../http/jail-setup.ts';

/** The seed says which node holds a guest; that wins over stored rows and over whoever reports first. */
const demoHost = () => JSON.parse(readFileSync('shared/seed/demo.json', 'utf8')).hosts['7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01'];
function seedWith(nodes: Array<{ id: string; ctids: number[] }>) {
  const hosts = Object.fromEntries(
    nodes.map((n) => [n.id, { ...demoHost(), jails: n.ctids.map((ctid) => ({ ctid, name: `s${ctid}`, dataset: `tank/jails/${ctid}` })), vms: [] }]),
  );
  return validateSeed({ nodes: nodes.map((n, i) => ({ id: n.id, name: `seeded-${n.id.slice(0, 8)}-${i}`, ip: `127.0.0.${30 + i}` })), hosts }, 'test');
}

test('a guest id given to two hosts is refused, naming both', async () => {
  const [a, b] = [randomUUID(), randomUUID()];
  const id = await freeGuestId();
  const err = await loadSeed(
    testDb(),
    seedWith([
      { id: a, ctids: [id] },
      { id: b, ctids: [id] },
    ]),
    'clash',
  ).catch((e) => e);
  expect(err).toBeInstanceOf(SeedError);
  expect(err.problems).toEqual([
    `hosts["${b}"].jails[0].ctid: guest id ${id} is also hosts["${a}"].jails[0].ctid; guest ids (jail ctids and VM rids) are unique across the cluster`,
  ]);
});

test('loading moves a stored guest to its seeded node; another node reporting it first does not take it', async () => {
  const id = await freeGuestId();
  const stale = await arrangeNode({ jails: [jailInv(id)] });
  await inTransaction(testDb(), (trx) => applyJailInventory(trx, stale, [jailInv(id)]));
  expect((await guestRow(id))!.node_id).toBe(stale);

  const seeded = randomUUID();
  await loadSeed(testDb(), seedWith([{ id: seeded, ctids: [id] }]), 'claim');
  expect((await guestRow(id))!.node_id).toBe(seeded);

  // the stale node's agent reports it before the seeded node's agent ever did: a clash, the seed stands
  const clashes = await inTransaction(testDb(), (trx) => applyJailInventory(trx, stale, [jailInv(id)]));
  expect(clashes).toEqual([id]);
  expect((await guestRow(id))!.node_id).toBe(seeded);
});

test('seed node ids are lowercase UUIDs, with a message that says so', () => {
  expect(() => validateSeed({ nodes: [{ id: 'node-a', name: 'a' }] }, 'ids')).toThrow(/nodes\[0\]\.id: must be a node id, the host's UUID in lowercase/);
  expect(() => validateSeed({ nodes: [{ id: randomUUID().toUpperCase(), name: 'a' }] }, 'ids')).toThrow(SeedError);
});
