import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { filesBelow, move } from '../file-tree.ts';
import { runningJails } from './jail-model.ts';

/**
 * Where a simulated filesystem is mounted and what unmounting it takes (zfs rename and zfs set mountpoint
 * remount it): the files under the mountpoint are the dataset's content; a running jail whose root lies at or
 * under it keeps the filesystem busy, as processes in it do on FreeBSD.
 */
export function mountpointOf(d: SimDataset): string | null {
  if (d.type !== 'filesystem') return null;
  if (d.mountpoint === 'none' || d.mountpoint === 'legacy') return null;
  return d.mountpoint ?? `/${d.name}`;
}

/** libzfs's refusal when a filesystem to remount is in use; null when it can be unmounted. */
export function busyError(state: SimHost, d: SimDataset): string | null {
  const mp = mountpointOf(d);
  if (!mp) return null;
  const inUse = runningJails(state).some((j) => j.path && (j.path === mp || j.path.startsWith(`${mp}/`)));
  return inUse ? `cannot unmount '${mp}': pool or dataset is busy` : null;
}

/** Moves a filesystem's files from where it was mounted to where it is mounted now. */
export function remount(state: SimHost, from: string | null, to: string | null): void {
  if (!from || from === to || !Object.keys(filesBelow(state, from)).length) return;
  if (to) move(state, from, to);
}
