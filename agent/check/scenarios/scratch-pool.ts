import { runChecked } from '../../executors/executor.ts';
import { listPools, poolGuid, poolStatus, leafVdevs } from '../../drivers/zfs/pools.ts';
import { recvArgv, sendArgv } from '../../drivers/zfs/backup-stream.ts';
import { listSnapshots } from '../../drivers/zfs/backup-snapshots.ts';
import { sendInto } from '../../drivers/zfs/send-receive.ts';
import { renameDataset, setCanmount } from '../../drivers/zfs/restore.ts';
import { mount, mountStates } from '../../drivers/zfs/mount.ts';
import { readOrNull, writeText } from '../../drivers/host-files.ts';
import { runJob } from '../jobs.ts';
import type { Scenario, ScenarioContext } from '../runner.ts';

/**
 * A file-backed scratch pool: two sparse files (truncate -s 128M) in /var/tmp/hm-check-<id>/, a pool on the
 * first (mounted inside that directory), a file written to it, snapshotted, sent with the backup job's argv into
 * a child (`zfs recv -u`), renamed and mounted as a restore does, the file read back from the copy; then the
 * pool's device is replaced by the second file through the `pool.replace-device` job, which follows the
 * resilver's progress. Cleanup: `zpool destroy` (only of the pool this run created) and the directory removed.
 */
const MIB128 = '128M';
export const SCRATCH_DIR = '/var/tmp';

/**
 * A pool on the first of `vdevs` (sparse files of 128M in `dir`, a directory the run makes), with its undo
 * registered first: `rm -rf dir` (not while the pool lives on its files) and `zpool destroy` (only of this pool,
 * only when it is there, and not while a zvol is left in it). Refuses a pool or directory that exists already.
 * The iscsi scenario makes its own the same way.
 */
export async function createFilePool(ctx: ScenarioContext, o: { pool: string; dir: string; vdevs: string[]; mountpoint: string }): Promise<void> {
  const { pool, dir } = o;
  if ((await listPools(ctx.exec)).some((p) => p.name === pool)) throw new Error(`pool ${pool} exists already; not touching it`);
  if ((await ctx.exec.run(['ls', dir])).code === 0) throw new Error(`${dir} exists already; not touching it`);
  ctx.cleanup(`rm -rf ${dir}`, async (exec) => {
    // the pool's devices are files in dir: while the pool is there, they stay
    if ((await listPools(exec)).some((p) => p.name === pool)) throw new Error(`not removing ${dir}: pool ${pool} is still imported on its files`);
    await runChecked(exec, ['rm', '-rf', dir]);
  });
  // /var/tmp is there on every FreeBSD host (hier(7)); only the run's own directory is made
  await runChecked(ctx.exec, ['mkdir', dir]);
  await runChecked(ctx.exec, ['truncate', '-s', MIB128, ...o.vdevs]);
  ctx.cleanup(`zpool destroy ${pool}`, async (exec) => {
    if (!(await listPools(exec)).some((p) => p.name === pool)) return;
    // a zvol left behind may still be open (ctld serving it): with a zvol open, zpool destroy waits in the kernel
    // for its last close with no timeout on OpenZFS 2.4.0-2.4.4 (FreeBSD 15.0), so the pool is left to the operator
    const volumes = (await runChecked(exec, ['zfs', 'list', '-H', '-o', 'name', '-t', 'volume', '-r', pool])).split('\n').filter(Boolean);
    if (volumes.length)
      throw new Error(
        `not destroying pool ${pool}: ${volumes.join(', ')} still there and may be open (zpool destroy can hang on an open zvol); release it (ctld), zfs destroy it, then zpool destroy ${pool} and rm -rf ${dir}`,
      );
    await runChecked(exec, ['zpool', 'destroy', pool]);
  });
  await runChecked(ctx.exec, ['zpool', 'create', '-m', o.mountpoint, pool, o.vdevs[0]]);
}

export const scratchPoolScenario: Scenario = {
  name: 'scratch-pool',
  portable: true,
  title: 'file-backed pool hm-check-<id>: snapshot, send/recv, rename, mount, restore, replace + resilver',
  async run(ctx) {
    const pool = ctx.options.scratchPool;
    const dir = `${SCRATCH_DIR}/hm-check-${ctx.options.id}`;
    const [d0, d1] = [`${dir}/vdev0`, `${dir}/vdev1`];
    const mnt = `${dir}/mnt`;
    await createFilePool(ctx, { pool, dir, vdevs: [d0, d1], mountpoint: mnt });
    ctx.note(`created pool ${pool} on ${d0}`);
    const created = await poolStatus(ctx.exec, pool);
    if (created.state !== 'ONLINE' || !leafVdevs(created).some((v) => v.name === d0))
      throw new Error(
        `zpool status ${pool}: ${created.state}, devices ${leafVdevs(created)
          .map((v) => v.name)
          .join(',')}`,
      );

    const content = `hm-check ${ctx.options.id}\n`;
    await writeText(ctx.exec, `${mnt}/hm-check.txt`, content);
    await runChecked(ctx.exec, ['zfs', 'snapshot', `${pool}@hm-check-1`]);
    const recv = `${pool}/received`;
    const piped = await sendInto(ctx.exec, sendArgv(pool, 'hm-check-1', null, false), ctx.exec, recvArgv(recv));
    const snaps = await listSnapshots(ctx.exec, recv);
    if (!snaps.some((s) => s.name === 'hm-check-1')) throw new Error(`zfs recv left no ${recv}@hm-check-1 (${snaps.map((s) => s.name).join(',')})`);
    ctx.note(`sent ${pool}@hm-check-1 into ${recv} (${piped.bytes} bytes)`);

    const restored = `${pool}/restored`;
    await renameDataset(ctx.exec, recv, restored);
    await setCanmount(ctx.exec, restored, 'on');
    await mount(ctx.exec, restored);
    const states = await mountStates(ctx.exec, restored);
    if (!states.find((s) => s.name === restored)?.mounted) throw new Error(`${restored} is not mounted after zfs mount`);
    const back = await readOrNull(ctx.exec, `${mnt}/restored/hm-check.txt`);
    if (back !== content) throw new Error(`${mnt}/restored/hm-check.txt holds ${JSON.stringify(back)}, not what was snapshotted`);

    const guid = await poolGuid(ctx.exec, pool);
    await runJob(ctx, 'pool.replace-device', { pool, guid, old: d0, new: d1 });
    const after = await poolStatus(ctx.exec, pool);
    const devices = leafVdevs(after).map((v) => v.name);
    if (after.state !== 'ONLINE' || devices.join(',') !== d1) throw new Error(`after the replacement ${pool} is ${after.state} on ${devices.join(',')}`);
    return `${pool}: snapshot, send/recv (${piped.bytes} bytes), rename, mount, file restored; ${d0} replaced by ${d1}, resilvered`;
  },
};
