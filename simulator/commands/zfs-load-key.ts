import { getopt } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { findDataset } from '../dataset-model.ts';
import { readFile } from '../file-tree.ts';

/**
 * zfs load-key [-n] [-L keylocation] dataset of OpenZFS 2.2, for encryption roots. A simulated encrypted
 * dataset carries `encryption`, `keyformat` (passphrase | hex | raw), `keylocation` and `keystatus` in its
 * properties, and the key the simulator accepts in the user property `simulator:key`. With `-L prompt` the key
 * is read from stdin (its first line for passphrase and hex); with a `file://<path>` location (from -L or the
 * dataset's `keylocation`), from that file of the host. Errors in libzfs's words ("Key load error: …").
 */
export const SIM_KEY_PROPERTY = 'simulator:key';

function loadKey(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'narL:');
  const [name] = o.operands;
  if (!name) return fail('missing dataset argument', 2);
  const d = findDataset(ctx.state, name);
  if (!d || d.type === 'snapshot') return fail(`cannot open '${name}': dataset does not exist`);
  const p = d.properties ?? {};
  const format = p.keyformat;
  if (!format || format === 'none' || format === '-') return fail(`Key load error: '${name}' is not encrypted.`, 255);
  if (p.keystatus === 'available' && !o.flags.has('n')) return fail(`Key load error: Key already loaded for '${name}'.`, 255);
  const location = o.values.get('L') ?? p.keylocation ?? 'prompt';
  const fromFile = location.startsWith('file://') ? readFile(ctx.state, location.slice('file://'.length)) : null;
  // libzfs_crypto.c get_key_material_file: fopen's strerror
  if (location !== 'prompt' && fromFile === null) return fail('Key load error: Failed to open key material file: No such file or directory', 255);
  const material = fromFile ?? ctx.stdin;
  const given = format === 'raw' ? material : material.split('\n')[0];
  if (format === 'hex' && !/^[0-9A-Fa-f]{64}$/.test(given)) return fail(`Key load error: Invalid hex key provided for '${name}'.`, 255);
  if (format === 'passphrase' && (given.length < 8 || given.length > 512)) return fail(`Key load error: Passphrase too short (min 8).`, 255);
  if (given !== p[SIM_KEY_PROPERTY]) return fail(`Key load error: Incorrect key provided for '${name}'.`, 255);
  if (!o.flags.has('n')) d.properties = { ...p, keystatus: 'available' };
  return {};
}

registerSubcommand('zfs', 'load-key', withUsage(loadKey, '\tload-key [-rn] [-L <keylocation>] <-a | filesystem|volume>'));
