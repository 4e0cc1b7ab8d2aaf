import { snapshotCreate, snapshotDestroy, snapshotRollback } from '#agent/jobs/snapshots';
import { listSnapshotInventory } from '#agent/drivers/zfs/snapshots';
import { type Guest, guest } from './guest.ts';
import { createPool, dropPool, jobContext } from './scenario.ts';

/**
 * The snapshot jobs and the inventory's snapshot section on real OpenZFS: what the simulator answers for
 * `zfs snapshot/rollback/destroy/hold/holds` and `zfs list -o userrefs,clones` is what the real programs do.
 */
const POOL = 'hmsnap';
const DS = `${POOL}/jails/web`;
let g: Guest;

beforeAll(async () => {
  g = await guest();
  await createPool(g, POOL);
  await g.ok(['zfs', 'create', '-p', DS]);
});
afterAll(async () => {
  if (!g) return;
  await dropPool(g, POOL);
  await g.close();
});

const inventory = async () => (await listSnapshotInventory(g.exec)).filter((s) => s.name.startsWith(`${DS}@`));
const write = (content: string) => g.sh(`printf %s '${content}' > /${DS}/f.txt`);

test('create: one zfs snapshot for the datasets; the inventory lists them oldest first with holds and clones', async () => {
  await write('one');
  expect(await snapshotCreate(jobContext(g, 'snapshot.create', 'jail:1'), { datasets: [DS], name: 'a' })).toEqual({ snapshots: [`${DS}@a`] });
  await write('two');
  await snapshotCreate(jobContext(g, 'snapshot.create', 'jail:1'), { datasets: [DS], name: 'before upgrade:1' });
  await g.ok(['zfs', 'snapshot', `${DS}@held`]);
  await g.ok(['zfs', 'hold', 'keep', `${DS}@held`]);
  await g.ok(['zfs', 'snapshot', `${DS}@cloned`]);
  await g.ok(['zfs', 'clone', `${DS}@cloned`, `${POOL}/copy`]);
  await g.ok(['zfs', 'snapshot', `${DS}@c`]);
  const inv = await inventory();
  expect(inv.map((s) => s.name)).toEqual([`${DS}@a`, `${DS}@before upgrade:1`, `${DS}@held`, `${DS}@cloned`, `${DS}@c`]);
  expect(inv.find((s) => s.name === `${DS}@held`)?.holds).toEqual(['keep']);
  expect(inv.find((s) => s.name === `${DS}@cloned`)?.clones).toEqual([`${POOL}/copy`]);
  expect(inv.find((s) => s.name === `${DS}@a`)).toMatchObject({ holds: [], clones: [] });
  // zfs refuses what the API refuses: a name with '/' or '%'
  expect((await g.run(['zfs', 'snapshot', `${DS}@bad/name`])).code).not.toBe(0);
  expect((await g.run(['zfs', 'snapshot', `${DS}@x%y`])).code).not.toBe(0);
});

test('destroy: a held or cloned snapshot is refused by zfs with the messages the simulator prints', async () => {
  const held = await g.run(['zfs', 'destroy', `${DS}@held`]);
  expect(held.code).toBe(1);
  expect(held.stderr).toContain(`cannot destroy snapshot ${DS}@held: it's being held. Run 'zfs holds -r ${DS}@held' to see holders.`);
  const cloned = await g.run(['zfs', 'destroy', `${DS}@cloned`]);
  expect(cloned.code).toBe(1);
  expect(cloned.stderr).toContain(`cannot destroy '${DS}@cloned': snapshot has dependent clones\nuse '-R' to destroy the following datasets:\n${POOL}/copy`);
  await expect(snapshotDestroy(jobContext(g, 'snapshot.destroy', 'jail:1'), { snapshot: `${DS}@held` })).rejects.toThrow(/held|busy/);
  expect(await snapshotDestroy(jobContext(g, 'snapshot.destroy', 'jail:1'), { snapshot: `${DS}@c` })).toEqual({ snapshot: `${DS}@c` });
  expect((await inventory()).map((s) => s.name)).not.toContain(`${DS}@c`);
});

test('rollback: refused past newer snapshots without -r (zfs names them); with it, exactly the announced ones go', async () => {
  await g.ok(['zfs', 'release', 'keep', `${DS}@held`]);
  await g.ok(['zfs', 'destroy', '-r', `${POOL}/copy`]);
  const refused = await g.run(['zfs', 'rollback', `${DS}@a`]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    `cannot rollback to '${DS}@a': more recent snapshots or bookmarks exist\nuse '-r' to force deletion of the following snapshots and bookmarks:\n${DS}@before upgrade:1`,
  );
  await expect(
    snapshotRollback(jobContext(g, 'snapshot.rollback', 'jail:1'), { snapshot: `${DS}@a`, destroyNewer: true, destroys: [`${DS}@before upgrade:1`] }),
  ).rejects.toThrow(/newer snapshots appeared since the request/);
  const newer = [`${DS}@before upgrade:1`, `${DS}@held`, `${DS}@cloned`];
  const res = await snapshotRollback(jobContext(g, 'snapshot.rollback', 'jail:1'), { snapshot: `${DS}@a`, destroyNewer: true, destroys: newer });
  expect(res).toEqual({ snapshot: `${DS}@a`, destroyed: newer });
  expect((await inventory()).map((s) => s.name)).toEqual([`${DS}@a`]);
  expect(await g.ok(['cat', `/${DS}/f.txt`])).toBe('one');
});
