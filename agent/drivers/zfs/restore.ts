import { runChecked, type Executor } from '../../executors/executor.ts';
import { sendInto } from './send-receive.ts';

/**
 * The ZFS steps of a backup restore (E15) besides listing snapshots (backup-snapshots.ts): stream
 * `zfs send -R -w ds@snap` from one host into `zfs recv -u -x mountpoint -x canmount <restoring>` on another (raw,
 * so an encrypted backup stays encrypted; unmounted and with an inherited mountpoint, so it never covers the live
 * dataset; without the backup copy's `canmount=noauto`, which belongs to the copy, not to the data), read
 * properties, load a key from stdin, rename, set the mountpoint and canmount.
 *
 * `-x canmount`: canmount is not inheritable, so libzfs drops the stream's value instead of inheriting
 * (libzfs_sendrecv.c zfs_setup_cmdline_props) and the restored dataset has the default, `on`.
 */

/** `zfs send -R -w <dataset>@<snap>` on `from` piped into `zfs recv -u -x mountpoint -x canmount <into>` on `to`. */
export async function receiveSnapshot(from: Executor, dataset: string, snap: string, to: Executor, into: string): Promise<number> {
  return (await sendInto(from, ['zfs', 'send', '-R', '-w', `${dataset}@${snap}`], to, ['zfs', 'recv', '-u', '-x', 'mountpoint', '-x', 'canmount', into])).bytes;
}

/** Properties of a dataset: value and source each (`zfs get -H -o property,value,source`). */
export async function datasetProps(exec: Executor, dataset: string, props: string[]): Promise<Record<string, { value: string; source: string }>> {
  const out = await runChecked(exec, ['zfs', 'get', '-H', '-o', 'property,value,source', props.join(','), dataset]);
  const res: Record<string, { value: string; source: string }> = {};
  for (const line of out.split('\n')) {
    const [prop, value, source] = line.split('\t');
    if (prop && value !== undefined) res[prop] = { value, source: source ?? '-' };
  }
  return res;
}

/** `zfs load-key -L prompt <dataset>` with the key on stdin (never on the command line). */
export async function loadKey(exec: Executor, dataset: string, key: string | Buffer): Promise<void> {
  await runChecked(exec, ['zfs', 'load-key', '-L', 'prompt', dataset], { stdin: key });
}

export async function renameDataset(exec: Executor, from: string, to: string): Promise<void> {
  await runChecked(exec, ['zfs', 'rename', from, to]);
}

export async function setCanmount(exec: Executor, dataset: string, value: string): Promise<void> {
  await runChecked(exec, ['zfs', 'set', `canmount=${value}`, dataset]);
}

export async function setMountpoint(exec: Executor, dataset: string, mountpoint: string): Promise<void> {
  await runChecked(exec, ['zfs', 'set', `mountpoint=${mountpoint}`, dataset]);
}

/**
 * `zfs change-key -i <dataset>`: the dataset inherits its wrapping key (and with it keylocation) from its parent's
 * encryption root again. Both keys must be loaded (zfs-change-key(8)).
 */
export async function inheritKey(exec: Executor, dataset: string): Promise<void> {
  await runChecked(exec, ['zfs', 'change-key', '-i', dataset]);
}

export async function setKeylocation(exec: Executor, dataset: string, keylocation: string): Promise<void> {
  await runChecked(exec, ['zfs', 'set', `keylocation=${keylocation}`, dataset]);
}

/**
 * The pool's altroot (`zpool import -R`), or null. zfs get prints a mountpoint with the altroot in front while the
 * property holds the path without it (libzfs zfs_prop_get, ZFS_PROP_MOUNTPOINT: the pool's altroot is prepended
 * for display; zfs set stores what it is given), so a mountpoint read to be written back loses it first.
 */
export async function poolAltroot(exec: Executor, dataset: string): Promise<string | null> {
  const pool = dataset.split('/')[0];
  const value = (await runChecked(exec, ['zpool', 'get', '-H', '-o', 'value', 'altroot', pool])).trim();
  return value.startsWith('/') ? value : null;
}

/** A mountpoint as zfs get printed it, without the pool's altroot: what zfs set takes for the same path. */
export function withoutAltroot(mountpoint: string, altroot: string | null): string {
  if (!altroot || altroot === '/') return mountpoint;
  if (mountpoint === altroot) return '/';
  return mountpoint.startsWith(`${altroot}/`) ? mountpoint.slice(altroot.length) : mountpoint;
}
