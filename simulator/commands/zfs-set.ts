import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { canonicalDatasetProp, DATASET_PROPS, findDataset, isMounted, parentOf } from '../dataset-model.ts';
import { busyError, mountFs, mountpointOf, remount, unmountFs } from './zfs-mounts.ts';

/**
 * zfs set property=value… dataset… of OpenZFS 2.2: `mountpoint` remounts a mounted filesystem (its files move;
 * refused while it is busy) and leaves one that is not mounted unmounted; other settable properties are kept as `zfs get` shows them. Read-only ones
 * (used, guid, keystatus, keyformat, encryption …) are refused in zfs's words.
 */
const READ_ONLY = new Set([
  ...Object.keys(DATASET_PROPS).filter((p) => p !== 'mountpoint' && p !== 'canmount' && p !== 'overlay' && p !== 'keylocation'),
  'keystatus',
  'keyformat',
  'encryption',
  'encryptionroot',
  'origin',
  'mounted',
]);

function set(ctx: CommandContext): CommandOutput {
  const assignments = ctx.args.filter((a) => a.includes('='));
  const names = ctx.args.filter((a) => !a.includes('=') && !a.startsWith('-'));
  if (!assignments.length) return fail('missing property=value argument(s)', 2);
  if (!names.length) return fail('missing dataset name(s)', 2);
  for (const name of names) {
    const d = findDataset(ctx.state, name);
    if (!d) return fail(`cannot open '${name}': dataset does not exist`);
    for (const a of assignments) {
      const [raw, ...rest] = a.split('=');
      const value = rest.join('=');
      const prop = canonicalDatasetProp(raw);
      if (!prop) return fail(`cannot set property for '${name}': invalid property '${raw}'`, 2);
      // zfs_prop_set_list's refusals come back as -1 from set_callback: exit status 255
      if (READ_ONLY.has(prop)) return fail(`cannot set property for '${name}': '${prop}' is readonly`, 255);
      if (prop === 'canmount' && !['on', 'off', 'noauto'].includes(value))
        return fail(`cannot set property for '${name}': 'canmount' must be one of 'on | off | noauto'`, 255);
      if (prop === 'mountpoint') {
        if (d.type !== 'filesystem') return fail(`cannot set property for '${name}': 'mountpoint' does not apply to datasets of this type`);
        if (value !== 'none' && value !== 'legacy' && !value.startsWith('/'))
          return fail(`cannot set property for '${name}': 'mountpoint' must be an absolute path, 'none', or 'legacy'`, 255);
        const busy = busyError(ctx.state, d);
        if (busy) return fail(busy);
        // zfsprops(7): remounted at the new place if it was mounted, or if the old value was none or legacy
        const wasMounted = isMounted(ctx.state, d);
        const was = mountpointOf(ctx.state, d);
        if (value === 'none' || value === 'legacy') {
          unmountFs(ctx.state, d);
          d.mountpoint = value;
        } else if (wasMounted) {
          d.mountpoint = value;
          remount(ctx.state, was, mountpointOf(ctx.state, d));
        } else {
          d.mountpoint = value;
        }
        // libzfs_changelist.c changelist_gather/changelist_postfix (zfs-2.3.2, as in 2.2.7): the change list is the
        // dataset and the filesystems below it that inherit its mountpoint (change_one stops at a local one); after
        // the change each of them that is not mounted is mounted when canmount=on and its key is loaded
        if (value !== 'none' && value !== 'legacy')
          for (const x of inheritingMountpoint(ctx.state, d)) {
            const locked = x.properties?.keystatus === 'unavailable';
            if (!locked && (x.properties?.canmount ?? 'on') === 'on') mountFs(ctx.state, x);
          }
      } else d.properties = { ...d.properties, [prop]: value };
    }
  }
  return {};
}

/** The filesystem and, parents first, the filesystems below it whose mountpoint is inherited from it. */
function inheritingMountpoint(state: SimHost, d: SimDataset): SimDataset[] {
  const out = [d];
  const below = state.datasets
    .filter((x) => x.type === 'filesystem' && x.name.startsWith(`${d.name}/`))
    .sort((a, b) => a.name.split('/').length - b.name.split('/').length);
  for (const x of below) if (x.mountpoint === undefined && out.some((p) => p.name === parentOf(x.name))) out.push(x);
  return out;
}

registerSubcommand('zfs', 'set', withUsage(set, '\tset <property=value> ... <filesystem|volume|snapshot> ...'));
