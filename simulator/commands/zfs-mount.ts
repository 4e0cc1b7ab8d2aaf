import { getopt } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { canmountOf, findDataset, inheritedProperty, isMounted, mountpointProperty, sortedDatasets } from '../dataset-model.ts';
import { isDir, listDir } from '../file-tree.ts';
import { busyError, mountFs, mountpointOf, unmountFs } from './zfs-mounts.ts';

/**
 * zfs mount / zfs unmount (umount) of OpenZFS 2.2 on FreeBSD 14, one filesystem at a time, refusing in
 * libzfs's words (lib/libzfs/libzfs_mount.c, cmd/zfs/zfs_main.c): a missing dataset, one already mounted or not
 * mounted, a legacy or no mountpoint, canmount=off, and a mountpoint directory that is not empty when overlay
 * mounts are off. OpenZFS 2.2 mounts over a non-empty directory unless the inheritable `overlay` property is off
 * (libzfs_mount.c zfs_mount_at: "Overlay mounts are enabled by default"; zfs_prop.c registers `overlay` with
 * default 1); `-O` overlays whatever the property says. The covered files show again at unmount.
 * `zfs mount` alone lists the mounted filesystems (`%-30s  %s`: name, mountpoint).
 */
function mount(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'vOalo:');
  if (!o.operands.length) {
    const rows = sortedDatasets(ctx.state).filter((d) => isMounted(ctx.state, d));
    return { stdout: rows.map((d) => `${d.name.padEnd(30)}  ${mountpointOf(ctx.state, d)}\n`).join('') };
  }
  const [name] = o.operands;
  const d = findDataset(ctx.state, name);
  if (!d || d.type === 'snapshot') return fail(`cannot open '${name}': dataset does not exist`);
  if (d.type !== 'filesystem') return fail(`cannot open '${name}': operation not applicable to datasets of this type`);
  const mp = mountpointProperty(ctx.state, d)!.value;
  if (mp === 'legacy') return fail(`cannot mount '${name}': legacy mountpoint\nuse mount(8) to mount this filesystem`);
  if (mp === 'none') return fail(`cannot mount '${name}': no mountpoint set`);
  if (canmountOf(d) === 'off') return fail(`cannot mount '${name}': 'canmount' property is set to 'off'`);
  if (isMounted(ctx.state, d)) return fail(`cannot mount '${name}': filesystem already mounted`);
  if (d.properties?.keystatus === 'unavailable') return fail(`cannot mount '${name}': encryption key not loaded`);
  const overlay = o.flags.has('O') || inheritedProperty(ctx.state, d, 'overlay', 'on') === 'on';
  if (!overlay && isDir(ctx.state, mp) && listDir(ctx.state, mp).length) return fail(`cannot mount '${mp}': directory is not empty`);
  mountFs(ctx.state, d);
  return {};
}

function unmount(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'fau');
  const [target] = o.operands;
  if (!target) return fail('missing filesystem argument', 2);
  const d = target.startsWith('/')
    ? ctx.state.datasets.find((x) => isMounted(ctx.state, x) && mountpointOf(ctx.state, x) === target)
    : findDataset(ctx.state, target);
  if (!d) return fail(target.startsWith('/') ? `cannot unmount '${target}': not a mountpoint` : `cannot open '${target}': dataset does not exist`);
  if (!isMounted(ctx.state, d)) return fail(`cannot unmount '${target}': not currently mounted`);
  const busy = o.flags.has('f') ? null : busyError(ctx.state, d);
  if (busy) return fail(busy);
  unmountFs(ctx.state, d);
  return {};
}

const MOUNT_USAGE = '\tmount\n\tmount [-flvO] [-o opts] <-a | filesystem>';
const UNMOUNT_USAGE = '\tunmount [-fu] <-a | filesystem|mountpoint>';
registerSubcommand('zfs', 'mount', withUsage(mount, MOUNT_USAGE));
registerSubcommand('zfs', 'unmount', withUsage(unmount, UNMOUNT_USAGE));
registerSubcommand('zfs', 'umount', withUsage(unmount, UNMOUNT_USAGE));
