import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { rcEnabled } from '../boot.ts';
import { filesBelow, readFile } from '../file-tree.ts';
import { registerBootHook } from '../registry.ts';
import { canmountOf, inheritedProperty, isMounted, mountPath } from '../dataset-model.ts';
import { mountFs, unmountFs } from './zfs-mounts.ts';
import { SIM_KEY_PROPERTY } from './zfs-load-key.ts';

/**
 * What a (re)boot does to ZFS. Shutdown unmounts every filesystem (deepest first) and the kernel forgets every
 * loaded key. At boot rc.d/zfskeys, when `zfskeys_enable` is set, loads the keys of datasets whose local
 * `keylocation` is a readable, non-empty file:// (libexec/rc/rc.d/zfskeys: `zfs get -s local … keylocation`,
 * `zfs load-key -L <kl> <fs>`), then rc.d/zfs runs `zfs mount -a`, which mounts every filesystem with
 * `canmount=on`, a mountpoint path (not none/legacy) and its key loaded — `noauto` and `off` are skipped — in
 * mountpoint order, parents first (libzfs_mount.c zfs_foreach_mountpoint), over non-empty directories when
 * `overlay` is on (the default) and leaving a filesystem unmounted when it is off.
 */
const byPath = (state: SimHost) => (a: SimDataset, b: SimDataset) => (mountPath(state, a) ?? '').localeCompare(mountPath(state, b) ?? '');
const encrypted = (d: SimDataset) => Boolean(d.properties?.encryption && d.properties.encryption !== 'off');

function loadKeysAtBoot(state: SimHost): void {
  for (const d of state.datasets) if (d.type !== 'snapshot' && encrypted(d) && d.properties) d.properties.keystatus = 'unavailable';
  if (!rcEnabled(state, 'zfskeys_enable')) return;
  for (const d of state.datasets) {
    const kl = d.properties?.keylocation;
    if (d.type === 'snapshot' || !kl?.startsWith('file://') || !d.properties) continue;
    const key = readFile(state, kl.slice('file://'.length));
    if (key && key.replace(/\n$/, '') === d.properties[SIM_KEY_PROPERTY]) d.properties.keystatus = 'available';
  }
}

/** The key of a dataset is usable: not encrypted, or its encryption root's key is loaded. */
function keyLoaded(state: SimHost, d: SimDataset): boolean {
  return !encrypted(d) || inheritedProperty(state, d, 'keystatus', 'available') === 'available';
}

registerBootHook('zfs', (state) => {
  const filesystems = state.datasets.filter((d) => d.type === 'filesystem');
  for (const d of filesystems
    .filter((x) => isMounted(state, x))
    .sort(byPath(state))
    .reverse())
    unmountFs(state, d);
  loadKeysAtBoot(state);
  for (const d of filesystems.sort(byPath(state))) {
    const mp = mountPath(state, d);
    if (!mp || canmountOf(d) !== 'on' || !keyLoaded(state, d)) continue;
    if (inheritedProperty(state, d, 'overlay', 'on') !== 'on' && Object.keys(filesBelow(state, mp)).length) continue;
    mountFs(state, d);
  }
});
