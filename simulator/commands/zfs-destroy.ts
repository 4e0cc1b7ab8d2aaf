import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { clonesOf, descendants, findDataset, isMounted, mountPath } from '../dataset-model.ts';
import { busyError, contentOf, setContent, snapDir, unmountFs } from './zfs-mounts.ts';
import { zvolOpener } from './zvol-openers.ts';

/**
 * `zfs destroy` as OpenZFS's cmd/zfs/zfs_main.c zfs_do_destroy and destroy_callback do it:
 * - `fs@snap[,snap…]`: the snapshots that exist (with -r, of the descendants too), in one batch;
 * - a filesystem or volume: without -r, a pool's root is refused ("operation does not apply to pools") and so is
 *   a dataset with children or snapshots ("<type> has children", listing them as zfs_iter_dependents visits
 *   them); with -r, every dependent is destroyed first, then the dataset. Each one is unmounted (refused while a
 *   running jail uses it, unless -f) and destroyed; the kernel refuses an open zvol (EBUSY, "dataset is busy") and
 *   a dataset that still has children (EEXIST, "dataset already exists"), and with -r zfs goes on past such
 *   problems, prints each, and exits 1. A filesystem left because of a child stays unmounted, as destroy_callback
 *   unmounts before it destroys.
 * The order is libzfs_iter.c iter_dependents_cb's (each child's dependents, the child, then the snapshots oldest
 * first); children go in name order here, where the real order is the ZAP's.
 */

/**
 * Why a snapshot cannot be destroyed, or null: a user hold makes the kernel answer EBUSY, which libzfs words as
 * "it's being held" (as OpenZFS 2.3.2 prints it: test/real-zfs/snapshots.test.ts; 2.2's wording was not confirmed
 * here); a clone (a dataset whose origin it is) makes zfs refuse without -R (zfs_main.c destroy_check_dependent:
 * "snapshot has dependent clones", then the clones).
 */
export function snapshotDestroyRefusal(state: SimHost, x: SimDataset): string | null {
  if (Object.keys(x.holds ?? {}).length) return `cannot destroy snapshot ${x.name}: it's being held. Run 'zfs holds -r ${x.name}' to see holders.`;
  const clones = clonesOf(state, x.name);
  if (clones.length) return `cannot destroy '${x.name}': snapshot has dependent clones\nuse '-R' to destroy the following datasets:\n${clones.join('\n')}`;
  return null;
}

/** Destroys snapshots: each one's files leave its filesystem's `.zfs/snapshot/<name>/`. */
export function dropSnapshots(state: SimHost, gone: SimDataset[]): void {
  for (const x of gone) {
    const [owner, n] = x.name.split('@');
    const ds = findDataset(state, owner);
    if (ds?.type === 'filesystem')
      setContent(state, ds, Object.fromEntries(Object.entries(contentOf(state, ds)).filter(([rel]) => !rel.startsWith(snapDir(n)))));
  }
  state.datasets = state.datasets.filter((x) => !gone.includes(x));
}

/** The filesystems and volumes right below `name` (below the nearest one that exists, should a seed skip a level). */
function childrenOf(state: SimHost, name: string): SimDataset[] {
  const under = state.datasets.filter((x) => x.type !== 'snapshot' && x.name.startsWith(`${name}/`));
  return under.filter((x) => !under.some((y) => x.name.startsWith(`${y.name}/`))).sort((a, b) => a.name.localeCompare(b.name));
}

function dependents(state: SimHost, name: string): SimDataset[] {
  const children = childrenOf(state, name);
  const snapshots = state.datasets.filter((x) => x.type === 'snapshot' && x.name.startsWith(`${name}@`));
  return [...children.flatMap((c) => [...dependents(state, c.name), c]), ...snapshots];
}

/** The one dataset's destroy (destroy_callback): unmount, then the kernel's checks; the refusal, or null when gone. */
function destroyOne(state: SimHost, x: SimDataset, force: boolean): string | null {
  if (x.type === 'filesystem') {
    // a filesystem still mounted below it keeps its mount busy (EBUSY); the simulator refuses a forced unmount too,
    // which FreeBSD's dounmount was not read to confirm
    const covered = isMounted(state, x) && childrenOf(state, x.name).some((c) => c.type === 'filesystem' && isMounted(state, c));
    const busy = covered ? `cannot unmount '${mountPath(state, x)}': pool or dataset is busy` : force ? null : busyError(state, x);
    if (busy) return busy;
    unmountFs(state, x);
  }
  if (x.type === 'volume' && zvolOpener(state, x.name)) return `cannot destroy '${x.name}': dataset is busy`;
  if (childrenOf(state, x.name).length) return `cannot destroy '${x.name}': dataset already exists`;
  setContent(state, x, {});
  state.datasets = state.datasets.filter((y) => y !== x);
  return null;
}

const notExist = (name: string) => fail(`cannot open '${name}': dataset does not exist`);

function destroy(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'vpndfrR');
  if (o.flags.has('n') || o.flags.has('v') || o.flags.has('p')) throw new Error('zfs destroy -n/-v/-p (dry run, verbose) is not simulated');
  const recurse = o.flags.has('r') || o.flags.has('R');
  const [target] = o.operands;
  if (!target) return fail('missing dataset argument', 2);
  if (target.includes('@')) {
    const [fs, list] = target.split('@');
    if (!findDataset(ctx.state, fs)) return notExist(fs);
    const owners = recurse ? descendants(ctx.state, fs).map((x) => x.name) : [fs];
    const names = new Set(list.split(',').flatMap((s) => owners.map((f) => `${f}@${s}`)));
    const gone = ctx.state.datasets.filter((x) => x.type === 'snapshot' && names.has(x.name));
    // zfs_main.c zfs_do_destroy / gather_snapshots (zfs-2.3.2, as in 2.2.7): a name that matches no snapshot is
    // skipped (zfs_iter_snapspec's ENOENT), and when none matched at all the command says so, with or without -r
    if (!gone.length) return fail('could not find any snapshots to destroy; check snapshot names.');
    const refusals = gone.map((x) => snapshotDestroyRefusal(ctx.state, x)).filter((r): r is string => r !== null);
    if (refusals.length) return fail(refusals.join('\n'));
    dropSnapshots(ctx.state, gone);
    return {};
  }
  const d = findDataset(ctx.state, target);
  if (!d) return notExist(target);
  if (!recurse && !target.includes('/') && d.type === 'filesystem')
    return fail(
      `cannot destroy '${target}': operation does not apply to pools\nuse 'zfs destroy -r ${target}' to destroy all datasets in the pool\nuse 'zpool destroy ${target}' to destroy the pool itself`,
    );
  const below = dependents(ctx.state, target);
  if (below.length && !recurse)
    return fail(`cannot destroy '${target}': ${d.type} has children\nuse '-r' to destroy the following datasets:\n${below.map((x) => x.name).join('\n')}`);
  const refusals: string[] = [];
  for (const x of [...below, d]) {
    if (x.type === 'snapshot') dropSnapshots(ctx.state, [x]);
    // a pool's root is skipped: only its datasets go
    else if (x !== d || target.includes('/')) {
      const why = destroyOne(ctx.state, x, o.flags.has('f'));
      if (why) refusals.push(why);
    }
  }
  return refusals.length ? fail(refusals.join('\n')) : {};
}

registerSubcommand(
  'zfs',
  'destroy',
  withUsage(destroy, '\tdestroy [-fnpRrv] <filesystem|volume>\n\tdestroy [-dnpRrv] <filesystem|volume>@<snap>[%<snap>][,...]'),
);
