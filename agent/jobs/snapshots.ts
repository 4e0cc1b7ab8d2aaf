import { runChecked } from '../executors/executor.ts';
import type { JobHandler } from './job.ts';

/** The dataset's snapshots newer than `snapshot`, oldest first (`zfs list -t snapshot -d 1` lists in creation order). */
async function newerThan(exec: Parameters<JobHandler>[0]['exec'], snapshot: string): Promise<string[]> {
  const [dataset] = snapshot.split('@');
  const names = (await runChecked(exec, ['zfs', 'list', '-H', '-t', 'snapshot', '-o', 'name', '-d', '1', dataset])).split('\n').filter(Boolean);
  const at = names.indexOf(snapshot);
  if (at < 0) throw new Error(`snapshot ${snapshot} is no longer on the host`);
  return names.slice(at + 1);
}

/** `snapshot.create`: one `zfs snapshot` for all the guest's datasets, so they are taken at the same instant. */
export const snapshotCreate: JobHandler<'snapshot.create'> = async (ctx, p) => {
  const snapshots = p.datasets.map((d) => `${d}@${p.name}`);
  await ctx.progress('snapshotting', 0, `zfs snapshot ${snapshots.join(' ')}`);
  await runChecked(ctx.exec, ['zfs', 'snapshot', ...snapshots]);
  return { snapshots };
};

/**
 * `snapshot.rollback`: `zfs rollback` to the snapshot; with `destroyNewer`, `-r`, which destroys the newer
 * snapshots (named in the result, as listed just before). Without it zfs refuses when newer ones exist, and its
 * message (naming them) fails the task.
 */
export const snapshotRollback: JobHandler<'snapshot.rollback'> = async (ctx, p) => {
  const newer = await newerThan(ctx.exec, p.snapshot);
  // destroy no more than the request announced: a snapshot taken since then is not the operator's to lose unasked
  const unannounced = newer.filter((n) => !p.destroys.includes(n));
  if (p.destroyNewer && unannounced.length) throw new Error(`not rolled back: newer snapshots appeared since the request: ${unannounced.join(', ')}`);
  await ctx.progress('rolling back', 0, `zfs rollback${p.destroyNewer ? ' -r' : ''} ${p.snapshot}`);
  await runChecked(ctx.exec, ['zfs', 'rollback', ...(p.destroyNewer ? ['-r'] : []), p.snapshot]);
  return { snapshot: p.snapshot, destroyed: p.destroyNewer ? newer : [] };
};

/** `snapshot.destroy`: `zfs destroy <ds@snap>` (never -R or -r: a hold or a clone makes zfs refuse, failing the task). */
export const snapshotDestroy: JobHandler<'snapshot.destroy'> = async (ctx, p) => {
  await ctx.progress('destroying', 0, `zfs destroy ${p.snapshot}`);
  await runChecked(ctx.exec, ['zfs', 'destroy', p.snapshot]);
  return { snapshot: p.snapshot };
};
