import { poolReplaceDevice } from '#agent/jobs/pool-replace-device';
import { listDatasets } from '#agent/drivers/zfs/datasets';
import { destroyIfExists } from '#agent/drivers/zfs/replication';
import { poolGuid, poolStatus } from '#agent/drivers/zfs/pools';
import { type Guest, guest } from './guest.ts';
import { createPool, dropPool, jobContext, VDEV_DIR, values } from './scenario.ts';

/**
 * The agent's pool and dataset steps on real OpenZFS, each checked afterwards with the guest's own zpool/zfs:
 * E7's replace followed to the end of the resilver, E13's zvol (the /dev/zvol path ctl.conf names), and zfs
 * destroy of a dataset with snapshots, clones and holds.
 */
let g: Guest;
beforeAll(async () => {
  g = await guest();
  // the resilver is short on file vdevs: read its progress often
  process.env.HM_RESILVER_POLL_MS = '200';
});
afterAll(() => g?.close());

describe('E7 replace', () => {
  const POOL = 'hmrepl';
  afterAll(() => dropPool(g, POOL));

  test('zpool replace of a file vdev is followed through the resilver to 100 %, the new device ONLINE', async () => {
    const [oldDev] = await createPool(g, POOL, { sizeMiB: 256 });
    const newDev = `${VDEV_DIR}/${POOL}-new.img`;
    await g.ok(['truncate', '-s', '256M', newDev]);
    // data to resilver: 96 MiB of incompressible blocks
    await g.ok(['dd', 'if=/dev/urandom', `of=/${POOL}/blob`, 'bs=1M', 'count=96', 'status=none']);
    await g.ok(['zpool', 'sync', POOL]);
    const progress: { phase: string; percent: number; output?: string }[] = [];
    const guid = await poolGuid(g.exec, POOL);
    const r = await poolReplaceDevice(jobContext(g, 'pool.replace-device', `pool:${POOL}`, progress), { pool: POOL, guid, old: oldDev, new: newDev });
    expect(r).toMatchObject({ pool: POOL, old: oldDev, new: newDev, poolState: 'ONLINE' });
    expect(r.scan).toMatch(/resilvered .* with 0 errors/);
    expect(progress[0]).toMatchObject({ phase: 'replacing', percent: 0 });
    expect(progress.at(-1)).toMatchObject({ phase: 'resilvered', percent: 100 });
    // percentages only go up
    const pcts = progress.map((p) => p.percent);
    expect(pcts).toEqual([...pcts].sort((a, b) => a - b));

    // the guest's own view: the new file is the pool's only device, ONLINE, the old one gone
    const status = await g.ok(['zpool', 'status', '-P', POOL]);
    expect(status).toMatch(new RegExp(`^\\s+${newDev.replace(/[./]/g, '\\$&')}\\s+ONLINE\\s+0\\s+0\\s+0$`, 'm'));
    expect(status).not.toContain(oldDev);
    expect(status).not.toMatch(/replacing-\d/);
    expect((await poolStatus(g.exec, POOL)).state).toBe('ONLINE');
  });
});

describe("E13's zvol", () => {
  const POOL = 'hmvol';
  afterAll(() => dropPool(g, POOL));

  test('a zvol is in the inventory with its volsize, and its device is at the /dev/zvol path ctl.conf names', async () => {
    await createPool(g, POOL);
    await g.ok(['zfs', 'create', '-p', '-V', '64M', `${POOL}/iscsi/lun0`]);
    const vols = (await listDatasets(g.exec)).filter((d) => d.name.startsWith(`${POOL}/`));
    expect(vols).toEqual([
      expect.objectContaining({ name: `${POOL}/iscsi`, type: 'filesystem' }),
      expect.objectContaining({ name: `${POOL}/iscsi/lun0`, type: 'volume', volsize: 64 * 2 ** 20 }),
    ]);
    // udev makes the link a moment after the create
    await g.ok(['udevadm', 'settle']);
    expect(await g.ok(['sh', '-c', `test -b /dev/zvol/${POOL}/iscsi/lun0 && echo block`])).toBe('block\n');
    expect(await values(g, 'volsize,type', `${POOL}/iscsi/lun0`)).toEqual([String(64 * 2 ** 20), 'volume']);
  });
});

describe('destroy with snapshots, clones and holds', () => {
  const POOL = 'hmdestroy';
  afterAll(() => dropPool(g, POOL));

  test("the agent's zfs destroy -r refuses a dataset whose snapshot has a clone or a hold, destroys nothing, and succeeds once they are gone", async () => {
    await createPool(g, POOL);
    const DS = `${POOL}/data`;
    await g.ok(['zfs', 'create', DS]);
    await g.ok(['zfs', 'create', `${DS}/child`]);
    await g.ok(['zfs', 'snapshot', '-r', `${DS}@s1`]);
    await g.ok(['zfs', 'snapshot', `${DS}@s2`]);
    await g.ok(['zfs', 'clone', `${DS}@s1`, `${POOL}/clone`]);
    await g.ok(['zfs', 'hold', 'keep', `${DS}@s2`]);

    const all = async () => (await g.ok(['zfs', 'list', '-H', '-o', 'name', '-t', 'all', '-r', POOL])).trimEnd().split('\n').sort();
    const before = await all();
    // zfs's own refusal: a clone outside the tree
    await expect(destroyIfExists(g.exec, DS)).rejects.toThrow(/dependent clones|use '-R' to destroy/);
    expect(await all()).toEqual(before);

    await g.ok(['zfs', 'destroy', `${POOL}/clone`]);
    // a hold: zfs names the held snapshot
    await expect(destroyIfExists(g.exec, DS)).rejects.toThrow(`cannot destroy snapshot ${DS}@s2: it's being held. Run 'zfs holds -r ${DS}@s2' to see holders.`);
    // zfs destroy -r goes past what it cannot destroy (zfs_do_destroy's destroy_callback): the held snapshot and
    // the dataset it keeps stay, and the zfs list of the pool says which
    expect(await all()).toEqual(expect.arrayContaining([DS, `${DS}@s2`]));
    expect((await g.ok(['zfs', 'holds', '-H', `${DS}@s2`])).split('\t').slice(0, 2)).toEqual([`${DS}@s2`, 'keep']);

    await g.ok(['zfs', 'release', 'keep', `${DS}@s2`]);
    expect(await destroyIfExists(g.exec, DS)).toBe(true);
    expect(await all()).toEqual([POOL]);
    // and a second destroy is not an error: there is nothing to destroy
    expect(await destroyIfExists(g.exec, DS)).toBe(false);
  });
});
