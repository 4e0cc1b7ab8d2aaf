import type { SimDataset } from '#shared/seed/host/schema';
import type { ParsedOptions } from '../format.ts';
import { fail, type CommandContext, type CommandOutput } from '../registry.ts';
import { findDataset, inheritedProperty, isMounted, mountPath, parentOf, poolOf } from '../dataset-model.ts';
import { makeDirs, readFile } from '../file-tree.ts';
import { newGuid } from '../pool-model.ts';
import { SIM_KEY_PROPERTY } from './zfs-load-key.ts';
import { parseRecvProps } from './zfs-recv-props.ts';

/**
 * `zfs create [-pu] [-o property=value]… filesystem` of OpenZFS (cmd/zfs/zfs_main.c zfs_do_create,
 * lib/libzfs/libzfs_dataset.c zfs_create, lib/libzfs/libzfs_crypto.c zfs_crypto_create): the pool must exist,
 * the parent too unless -p creates it, the name must be free; the new filesystem is mounted unless -u
 * (zfs_do_create's zfs_mount_and_share). `-o mountpoint=` is its mountpoint, other properties are kept as
 * `zfs get` shows them. `encryption=on` makes an encryption root (aes-256-gcm, zfs_prop.c's default crypt)
 * whose key comes from keylocation (a file://, or stdin for prompt); a child of an encrypted filesystem
 * inherits its encryption root, with keylocation `none` (zfs_crypto_create: only a root has a keylocation).
 */
const NEW_FS_USED = 24_576;
const MIN_PBKDF2_ITERATIONS = 100_000;

function encryption(ctx: CommandContext, name: string, props: Record<string, string>): Record<string, string> | string {
  const parent = parentOf(name);
  const crypt = props.encryption;
  if (crypt === undefined || crypt === 'off') {
    const root = parent ? inheritedProperty(ctx.state, findDataset(ctx.state, parent)!, 'encryptionroot', '') : '';
    if (crypt === 'off' && root) return 'encryption property cannot be off for a child of an encrypted dataset';
    if (!root) return {};
    const r = findDataset(ctx.state, root)!.properties ?? {};
    const { encryption: e = 'aes-256-gcm', keyformat = 'passphrase' } = r;
    return { encryption: e, keyformat, keylocation: 'none', encryptionroot: root, keystatus: 'available' };
  }
  const format = props.keyformat;
  if (!format) return 'Keyformat required for new encryption root.';
  const location = props.keylocation ?? 'prompt';
  const material = location === 'prompt' ? ctx.stdin : location.startsWith('file://') ? readFile(ctx.state, location.slice(7)) : null;
  if (material === null) return 'Failed to open key material file: No such file or directory';
  const key = format === 'raw' ? material : material.split('\n')[0];
  return {
    encryption: crypt === 'on' ? 'aes-256-gcm' : crypt,
    keyformat: format,
    keylocation: location,
    encryptionroot: name,
    keystatus: 'available',
    [SIM_KEY_PROPERTY]: key,
  };
}

export function createFilesystem(ctx: CommandContext, o: ParsedOptions): CommandOutput {
  const [name, ...extra] = o.operands;
  if (!name) return fail('missing filesystem argument', 2);
  if (extra.length) return fail('too many arguments', 2);
  const host = ctx.state;
  // zfs_create (libzfs_dataset.c): a pool's name alone has no dataset to create
  if (!name.includes('/')) return fail(`cannot create '${name}': missing dataset name`);
  if (!host.pools.some((p) => p.name === poolOf(name))) return fail(`cannot create '${name}': no such pool '${poolOf(name)}'`);
  if (findDataset(host, name)) return fail(`cannot create '${name}': dataset already exists`);
  const parsed = parseRecvProps(ctx.args);
  if ('error' in parsed) return fail(parsed.error, 2);
  const props = Object.fromEntries(parsed.set);
  const missing: string[] = [];
  for (let p = parentOf(name); p && !findDataset(host, p); p = parentOf(p)) missing.unshift(p);
  if (missing.length && !o.flags.has('p')) return fail(`cannot create '${name}': parent does not exist`);
  // zfs_valid_proplist (lib/libzfs/libzfs_dataset.c, case ZFS_PROP_PBKDF2_ITERS): fewer iterations than
  // MIN_PBKDF2_ITERATIONS (include/sys/fs/zfs.h, the same in FreeBSD 14's and 15's OpenZFS) are refused, EZFS_BADPROP
  const iters = props.pbkdf2iters;
  if (iters !== undefined && Number(iters) < MIN_PBKDF2_ITERATIONS) {
    return fail(`cannot create '${name}': minimum pbkdf2 iterations is ${MIN_PBKDF2_ITERATIONS}`);
  }
  if (o.flags.has('n')) return {};
  const now = Math.floor(ctx.now / 1000);
  for (const p of missing) {
    const crypt = encryption(ctx, p, {});
    host.datasets.push({
      name: p,
      type: 'filesystem',
      usedBytes: NEW_FS_USED,
      guid: newGuid(),
      creation: now,
      ...(typeof crypt === 'object' && Object.keys(crypt).length ? { properties: crypt } : {}),
    });
  }
  const crypt = encryption(ctx, name, props);
  if (typeof crypt === 'string') return fail(`cannot create '${name}': ${crypt}`);
  const { mountpoint, encryption: _e, keyformat: _f, keylocation: _l, ...rest } = props;
  const d: SimDataset = {
    name,
    type: 'filesystem',
    usedBytes: NEW_FS_USED,
    guid: newGuid(),
    creation: now,
    ...(mountpoint !== undefined ? { mountpoint } : {}),
    // zfs_mount_and_share mounts only a canmount=on filesystem
    ...(o.flags.has('u') || (props.canmount ?? 'on') !== 'on' ? { mounted: false } : {}),
  };
  const all = { ...rest, ...crypt };
  if (Object.keys(all).length) d.properties = all;
  host.datasets.push(d);
  const mp = !o.flags.has('u') && isMounted(host, d) ? mountPath(host, d) : null;
  if (mp) makeDirs(host, mp);
  return {};
}
