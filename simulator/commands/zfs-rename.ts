import { getopt } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { findDataset, poolOf } from '../dataset-model.ts';
import { isMounted } from '../dataset-model.ts';
import { busyError, mountpointOf, remount } from './zfs-mounts.ts';

/**
 * zfs rename of OpenZFS 2.2 for filesystems and volumes: the dataset, its descendants and their snapshots
 * take the new name; a mounted filesystem without a local mountpoint is remounted under the new name (its files
 * move); one that is not mounted stays unmounted (zfsprops(7): only a mounted filesystem is remounted).
 * Refusals in libzfs's words: a missing source, an existing target (after the unmount), another pool, a busy filesystem.
 */
function rename(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'fpru');
  const [from, to] = o.operands;
  if (!from || !to || o.operands.length !== 2) return fail('missing target dataset argument', 2);
  if (from.includes('@') || to.includes('@')) return fail(`cannot rename '${from}': snapshots are not renamed by this simulator`, 2);
  const d = findDataset(ctx.state, from);
  if (!d) return fail(`cannot open '${from}': dataset does not exist`);
  if (poolOf(from) !== poolOf(to)) return fail(`cannot rename to '${to}': datasets must be within same pool`);
  if (to.startsWith(`${from}/`)) return fail(`cannot rename to '${to}': New dataset name cannot be a descendant of current dataset name`);
  const parent = to.slice(0, to.lastIndexOf('/'));
  if (parent && !findDataset(ctx.state, parent)) return fail(`cannot rename to '${to}': parent does not exist`);
  const members = ctx.state.datasets.filter((x) => x.name === from || x.name.startsWith(`${from}/`) || x.name.startsWith(`${from}@`));
  const mounted = members.filter((x) => x.type === 'filesystem' && isMounted(ctx.state, x));
  if (!o.flags.has('u')) {
    for (const x of mounted) {
      const busy = busyError(ctx.state, x);
      if (busy) return fail(busy);
    }
  }
  // libzfs_dataset.c zfs_rename (zfs-2.3.2, as in 2.2.7): a taken name is the kernel's EEXIST from ZFS_IOC_RENAME,
  // after changelist_prefix unmounted (a busy filesystem refuses first), reported against the source
  if (findDataset(ctx.state, to)) return fail(`cannot rename '${from}': dataset already exists`);
  const before = new Map(mounted.map((x) => [x, mountpointOf(ctx.state, x)]));
  for (const x of members) x.name = `${to}${x.name.slice(from.length)}`;
  // parents before children, so a child's files move after its parent's tree
  for (const [x, mp] of before) remount(ctx.state, mp, mountpointOf(ctx.state, x));
  return {};
}

registerSubcommand(
  'zfs',
  'rename',
  withUsage(
    rename,
    '\trename [-f] <filesystem|volume|snapshot> <filesystem|volume|snapshot>\n\trename -p [-f] <filesystem|volume> <filesystem|volume>\n\trename -u [-f] <filesystem> <filesystem>\n\trename -r <snapshot> <snapshot>',
  ),
);
