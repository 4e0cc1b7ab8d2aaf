import { getopt, UsageError } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { findDataset, parentOf, poolOf } from '../dataset-model.ts';
import { newGuid, poolAvailable } from '../pool-model.ts';
import { createFilesystem } from './zfs-create-fs.ts';

/**
 * `zfs create -V size [-s] [-b blocksize] volume` of OpenZFS (cmd/zfs/zfs_main.c zfs_do_create,
 * lib/libzfs/libzfs_dataset.c zfs_create and zvol_volsize_to_reservation): the size is zfs_nicestrtonum's
 * (`bad volume size '64Q': …`), rounded up to a multiple of the volblocksize (default ZVOL_DEFAULT_BLOCKSIZE,
 * 16K, on a pool of single-device vdevs); the pool must exist (`cannot open 'p': no such pool`), the parent too
 * (`cannot create 'p/a/v': parent does not exist`), the name must be free (`… dataset already exists`), the size
 * not zero (`… volume size cannot be zero`). Unless -s (sparse) the volume reserves refreservation = volsize +
 * its metadata blocks (7 for the meta-dnode, then one per 1024 blocks of each indirect level, twice for
 * copies=1, 128K each), taken from the pool (`… out of space` when it does not fit). A filesystem's create is in
 * zfs-create-fs.ts.
 */
const ZVOL_DEFAULT_BLOCKSIZE = 16_384;
const DNODES_PER_LEVEL = 1024;
const INDIRECT_BLOCK = 1 << 17;
/** what an empty zvol references (its objset and first blocks) */
const EMPTY_ZVOL = 57_344;

/** libzfs zfs_nicestrtonum: a number with an optional B/K/M/G/T/P/E suffix (and an optional trailing B or iB) */
function nicestrtonum(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([BKMGTPE]?)(i?B)?$/i.exec(s);
  if (!m || (m[3] && !m[2])) return null;
  return Math.floor(Number(m[1]) * 1024 ** 'BKMGTPE'.indexOf(m[2].toUpperCase() || 'B'));
}

export function volsizeToReservation(volsize: number, volblocksize = ZVOL_DEFAULT_BLOCKSIZE): number {
  let nblocks = Math.floor(volsize / volblocksize);
  let numdb = 7;
  while (nblocks > 1) {
    nblocks = Math.floor((nblocks + DNODES_PER_LEVEL - 1) / DNODES_PER_LEVEL);
    numdb += nblocks;
  }
  return volsize + numdb * 2 * INDIRECT_BLOCK;
}

function create(ctx: CommandContext): CommandOutput {
  const args = ctx.args;
  const i = args.indexOf('-V');
  if (i >= 0 && i === args.length - 1) throw new UsageError('missing size argument');
  const o = getopt(args, 'PV:b:nso:puv');
  const sizeArg = o.values.get('V');
  if (sizeArg === undefined) return createFilesystem(ctx, o);
  const [name, ...extra] = o.operands;
  if (!name) throw new UsageError('missing volume argument');
  if (extra.length) throw new UsageError('too many arguments');
  let volsize = nicestrtonum(sizeArg);
  if (volsize === null) {
    // libzfs_util.c zfs_nicestrtonum: a number with an unknown suffix, else not a number at all
    const suffix = /^\d+(?:\.\d+)?(.+)$/.exec(sizeArg)?.[1];
    return fail(`bad volume size '${sizeArg}': ${suffix ? `invalid numeric suffix '${suffix}'` : `bad numeric value '${sizeArg}'`}`);
  }
  const host = ctx.state;
  const pool = host.pools.find((p) => p.name === poolOf(name));
  if (!pool) return fail(`cannot open '${poolOf(name)}': no such pool`);
  const parent = parentOf(name);
  if (!parent || !findDataset(host, parent)) {
    // -p would create the missing filesystems, and filesystems' create is not simulated: say so, never pretend
    if (o.flags.has('p')) throw new Error(`zfs create -p: creating the missing parents of '${name}' is not simulated`);
    return fail(`cannot create '${name}': parent does not exist`);
  }
  if (findDataset(host, name)) return fail(`cannot create '${name}': dataset already exists`);
  const blocksize = o.values.has('b') ? (nicestrtonum(o.values.get('b')!) ?? ZVOL_DEFAULT_BLOCKSIZE) : ZVOL_DEFAULT_BLOCKSIZE;
  if (volsize % blocksize) volsize += blocksize - (volsize % blocksize);
  if (volsize === 0) return fail(`cannot create '${name}': volume size cannot be zero`);
  const reservation = o.flags.has('s') ? 0 : volsizeToReservation(volsize, blocksize);
  if (reservation > poolAvailable(host, pool)) return fail(`cannot create '${name}': out of space`);
  if (o.flags.has('n')) return {};
  host.datasets.push({
    name,
    type: 'volume',
    usedBytes: Math.max(reservation, EMPTY_ZVOL),
    referencedBytes: EMPTY_ZVOL,
    volsizeBytes: volsize,
    guid: newGuid(),
    creation: Math.floor(ctx.now / 1000),
  });
  return {};
}

registerSubcommand(
  'zfs',
  'create',
  withUsage(create, '\tcreate [-Pnpuv] [-o property=value] ... <filesystem>\n\tcreate [-Pnpsv] [-b blocksize] [-o property=value] ... -V <size> <volume>'),
);
