import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { filesBelow, makeDirs, move, removeTree, writeFile, type SimFile } from '../file-tree.ts';
import { isMounted, mountPath } from '../dataset-model.ts';
import { runningJails } from './jail-model.ts';

/**
 * Where a simulated filesystem's files are: while it is mounted, the files under its mountpoint; while it is not
 * (received with `zfs recv -u`, or unmounted), kept with the dataset (`unmountedFiles`) and invisible under the
 * mountpoint, as on FreeBSD. A running jail whose root lies at or under a mounted filesystem keeps it busy, as
 * processes in it do. zfs rename and zfs set mountpoint remount a filesystem only when it was mounted.
 */
export function mountpointOf(state: SimHost, d: SimDataset): string | null {
  return mountPath(state, d);
}

/** libzfs's refusal when a filesystem to unmount is in use; null when it can be unmounted (or is not mounted). */
export function busyError(state: SimHost, d: SimDataset): string | null {
  if (!isMounted(state, d)) return null;
  const mp = mountPath(state, d)!;
  const inUse = runningJails(state).some((j) => j.path && (j.path === mp || j.path.startsWith(`${mp}/`)));
  return inUse ? `cannot unmount '${mp}': pool or dataset is busy` : null;
}

/** Moves a mounted filesystem's files from where it was mounted to where it is mounted now. */
export function remount(state: SimHost, from: string | null, to: string | null): void {
  if (!from || from === to || !Object.keys(filesBelow(state, from)).length) return;
  if (to) move(state, from, to);
}

/** Where a snapshot's files show in its filesystem: `.zfs/snapshot/<snap>/`. */
export const snapDir = (snap: string) => `.zfs/snapshot/${snap}/`;

/** A filesystem's files (its `.zfs/snapshot/<snap>/` copies included), by path relative to its mountpoint. */
export function contentOf(state: SimHost, d: SimDataset): Record<string, SimFile> {
  if (d.type !== 'filesystem') return {};
  if (isMounted(state, d)) return filesBelow(state, mountPath(state, d)!);
  return Object.fromEntries(Object.entries(d.unmountedFiles ?? {}).map(([rel, f]) => [rel, { ...f }]));
}

/** Replaces a filesystem's files: under its mountpoint while mounted, with the dataset while not. */
export function setContent(state: SimHost, d: SimDataset, files: Record<string, SimFile>): void {
  if (d.type !== 'filesystem') return;
  if (isMounted(state, d)) {
    const mp = mountPath(state, d)!;
    removeTree(state, mp);
    for (const [rel, f] of Object.entries(files)) writeFile(state, `${mp}/${rel}`, f.content, f.mode, true);
    return;
  }
  if (Object.keys(files).length) d.unmountedFiles = files;
  else delete d.unmountedFiles;
}

/** Unmounts: the files leave the mountpoint and stay with the dataset; what the mount covered shows again. */
export function unmountFs(state: SimHost, d: SimDataset): void {
  if (!isMounted(state, d)) return;
  const files = contentOf(state, d);
  const mp = mountPath(state, d)!;
  removeTree(state, mp);
  for (const [rel, f] of Object.entries(d.overlaidFiles ?? {})) writeFile(state, `${mp}/${rel}`, f.content, f.mode, true);
  delete d.overlaidFiles;
  d.mounted = false;
  setContent(state, d, files);
}

/**
 * Mounts: the dataset's files appear under its mountpoint. Files already in that directory are covered (an
 * overlay mount, as FreeBSD's nmount with MNT_OVERLAY does): kept aside and shown again at unmount.
 */
export function mountFs(state: SimHost, d: SimDataset): void {
  if (isMounted(state, d)) return;
  const files = contentOf(state, d);
  const mp = mountPath(state, d);
  const covered = mp ? filesBelow(state, mp) : {};
  if (Object.keys(covered).length) d.overlaidFiles = covered;
  delete d.unmountedFiles;
  delete d.mounted;
  // zfs_mount_at creates the mountpoint directory when it is missing (libzfs_mount.c, mkdirp)
  if (mp) makeDirs(state, mp);
  setContent(state, d, files);
}
