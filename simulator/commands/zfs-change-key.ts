import { getopt } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { findDataset, parentOf } from '../dataset-model.ts';
import { SIM_KEY_PROPERTY } from './zfs-load-key.ts';

/**
 * `zfs change-key -i dataset` (E15 puts a restored dataset back under its parent's encryption root): cmd/zfs/zfs_main.c
 * zfs_do_change_key and lib/libzfs/libzfs_crypto.c zfs_crypto_rewrap with inheritkey (zfs-2.3.2; the same in 2.2.7).
 * The dataset must be encrypted, an encryption root, not a clone, below an encrypted parent whose key is loaded,
 * with its own key loaded; then it and the datasets that had it as their root take the parent's encryption root,
 * and its keylocation becomes `none` (only a root has one). Refusals are `Key change error: …`, exit 255
 * (zfs_do_change_key returns -1). A new key (`change-key [-l] [-o …]` without -i) is not simulated (fault, 70).
 */
function changeKey(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'lio:');
  if (!o.flags.has('i')) throw new Error('zfs change-key without -i (a new wrapping key) is not simulated');
  if (o.values.has('o')) return fail('Properties not allowed for inheriting', 2);
  const [name] = o.operands;
  if (!name) return fail('Missing dataset argument', 2);
  const d = findDataset(ctx.state, name);
  if (!d || d.type === 'snapshot') return fail(`cannot open '${name}': dataset does not exist`, 2);
  const refuse = (why: string) => fail(`Key change error: ${why}`, 255);
  const p = d.properties ?? {};
  if (!p.encryption || p.encryption === 'off') return refuse('Dataset not encrypted.');
  if (p.origin) return refuse('Keys cannot be changed on clones.');
  if (p.encryptionroot !== name) return refuse('Key inheritting can only be performed on encryption roots.');
  const parentName = parentOf(name);
  if (!parentName) return refuse('Root dataset cannot inherit key.');
  const parent = findDataset(ctx.state, parentName);
  if (!parent) return refuse('Failed to lookup parent.');
  const pp = parent.properties ?? {};
  if (!pp.encryption || pp.encryption === 'off') return refuse('Parent must be encrypted.');
  if (pp.keystatus === 'unavailable') return refuse('Parent key must be loaded.');
  if (p.keystatus === 'unavailable') return refuse('Key must be loaded.');
  const root = pp.encryptionroot ?? parentName;
  for (const x of ctx.state.datasets) {
    if (x.properties?.encryptionroot !== name) continue;
    x.properties = { ...x.properties, encryptionroot: root };
  }
  const { [SIM_KEY_PROPERTY]: _own, ...rest } = d.properties ?? {};
  d.properties = { ...rest, keylocation: 'none' };
  return {};
}

registerSubcommand(
  'zfs',
  'change-key',
  withUsage(
    changeKey,
    '\tchange-key [-l] [-o keyformat=<value>]\n\t    [-o keylocation=<value>] [-o pbkdf2iters=<value>]\n\t    <filesystem|volume>\n\tchange-key -i [-l] <filesystem|volume>',
  ),
);
