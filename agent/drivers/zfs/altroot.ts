import { runChecked, type Executor } from '../../executors/executor.ts';

/**
 * A mountpoint as `zfs set` takes it, from the value `zfs get` shows. On a pool imported with an altroot
 * (`zpool import -R /mnt`, a rescue or installer session), openzfs lib/libzfs/libzfs_dataset.c zfs_prop_get
 * shows ZFS_PROP_MOUNTPOINT as altroot + mountpoint (an altroot of `/` adds nothing; a mountpoint of `/`
 * becomes the altroot itself). Writing that value back would set the altroot into the property, so the
 * dataset would mount one altroot deeper at its next import.
 */
export async function poolAltroot(exec: Executor, dataset: string): Promise<string | null> {
  const pool = dataset.split(/[/@]/)[0];
  const v = (await runChecked(exec, ['zpool', 'get', '-H', '-o', 'value', 'altroot', pool])).trim();
  return v === '' || v === '-' || v === '/' ? null : v.replace(/\/+$/, '');
}

/** `value` without the pool's altroot prefix (see poolAltroot); `none`, `legacy` and other paths as they are. */
export function stripAltroot(value: string, altroot: string | null): string {
  if (!altroot || !value.startsWith('/')) return value;
  if (value === altroot) return '/';
  return value.startsWith(`${altroot}/`) ? value.slice(altroot.length) : value;
}

/** The dataset's mountpoint as it would be set (its pool's altroot taken off). */
export async function settableMountpoint(exec: Executor, dataset: string, shown: string): Promise<string> {
  return shown.startsWith('/') ? stripAltroot(shown, await poolAltroot(exec, dataset)) : shown;
}
