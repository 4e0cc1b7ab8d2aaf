import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { BadPropertyError, getopt, propertyListing, table, UsageError } from '../format.ts';
import { registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { canonicalDatasetProp, DATASET_PROPS, datasetSource, datasetValue, findDataset, sortedDatasets, TYPE_ALIASES } from '../dataset-model.ts';

/**
 * zfs list / zfs get of OpenZFS 2.2 (FreeBSD 14). Other zfs subcommands (snapshot, send, recv …) are
 * registered from their own files with registerSubcommand('zfs', …).
 */

function props(spec: string, dflt: string[]): string[] {
  if (!spec) return dflt;
  return spec.split(',').map((p) => {
    const c = canonicalDatasetProp(p);
    if (!c) throw new BadPropertyError(`bad property list: invalid property '${p}'`);
    return c;
  });
}

function types(spec: string | undefined, dflt: SimDataset['type'][]): Set<SimDataset['type']> {
  if (!spec) return new Set(dflt);
  const out = new Set<SimDataset['type']>();
  for (const t of spec.split(',')) {
    const ts = TYPE_ALIASES[t];
    if (!ts) throw new UsageError(`invalid type '${t}'`);
    for (const x of ts) out.add(x);
  }
  return out;
}

/** How far below `root` a dataset is (0: itself), or -1 when it is not in root's tree (a name that merely shares its prefix length is not). */
const depthBelow = (root: string, name: string) => {
  if (name === root) return 0;
  if (!name.startsWith(root)) return -1;
  const rest = name.slice(root.length);
  if (rest.startsWith('@')) return 1;
  if (!rest.startsWith('/')) return -1;
  const tail = rest.slice(1);
  return tail.split('/').length + (tail.includes('@') ? 1 : 0);
};

/**
 * The datasets a list/get addresses, as cmd/zfs/zfs_iter.c zfs_for_each and zfs_callback pick them. An operand
 * opens (libzfs zfs_open) only as a type of `wanted`, and with recursion also as a filesystem, and as a volume when
 * snapshots are wanted; otherwise `cannot open 'x': operation not applicable to datasets of this type` (and the
 * name checks of zfs_validate_name come first). It is shown when its type is wanted; below it (within the depth),
 * the types of `below`.
 */
function select(
  host: SimHost,
  operands: string[],
  recursive: boolean,
  maxDepth: number,
  wanted: Set<SimDataset['type']>,
  below: Set<SimDataset['type']> = wanted,
): { rows: SimDataset[]; errors: string } {
  const all = sortedDatasets(host);
  if (!operands.length) return { rows: all.filter((d) => below.has(d.type)), errors: '' };
  const opens = new Set(wanted);
  if (recursive) {
    opens.add('filesystem');
    if (wanted.has('snapshot')) opens.add('volume');
  }
  let errors = '';
  const rows: SimDataset[] = [];
  for (const op of operands) {
    const refused = (why: string) => void (errors += `cannot open '${op}': ${why}\n`);
    if (!opens.has('snapshot') && op.includes('@')) {
      refused("snapshot delimiter '@' is not expected here");
      continue;
    }
    if (opens.size === 1 && opens.has('snapshot') && !op.includes('@')) {
      refused("missing '@' delimiter in snapshot name");
      continue;
    }
    const root = findDataset(host, op);
    if (!root) refused('dataset does not exist');
    else if (!opens.has(root.type)) refused('operation not applicable to datasets of this type');
    else if (!recursive) rows.push(root);
    else
      for (const d of all) {
        const depth = depthBelow(op, d.name);
        if (depth < 0 || depth > maxDepth) continue;
        if ((depth === 0 ? wanted : below).has(d.type)) rows.push(d);
      }
  }
  return { rows: rows.filter((d, i) => rows.indexOf(d) === i), errors };
}

function sortRows(host: SimHost, rows: SimDataset[], keys: { prop: string; desc: boolean }[]): SimDataset[] {
  if (!keys.length) return rows;
  const val = (d: SimDataset, p: string) => {
    const v = datasetValue(host, d, p, true);
    return /^-?\d+$/.test(v) ? Number(v) : v;
  };
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const x = val(a, k.prop);
      const y = val(b, k.prop);
      if (x !== y) return (x < y ? -1 : 1) * (k.desc ? -1 : 1);
    }
    return 0;
  });
}

/** Sort keys in command-line order: -s ascending, -S descending (getopt keeps only the last, so scan argv). */
function sortKeys(args: string[]): { prop: string; desc: boolean }[] {
  const keys: { prop: string; desc: boolean }[] = [];
  for (let i = 0; i < args.length; i++) {
    const m = /^-([sS])(.*)$/.exec(args[i]);
    if (!m) continue;
    const prop = m[2] || args[++i];
    const c = canonicalDatasetProp(prop ?? '');
    if (!c) throw new BadPropertyError(`invalid property '${prop}'`);
    keys.push({ prop: c, desc: m[1] === 'S' });
  }
  return keys;
}

// ---- zfs list [-r|-d depth] [-Hp] [-o property[,...]] [-s property]... [-S property]... [-t type[,...]] [dataset]...
function list(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'Hprd:o:s:S:t:');
  const cols = props(o.values.get('o') ?? '', ['name', 'used', 'available', 'referenced', 'mountpoint']);
  let recursive = o.flags.has('r') || o.values.has('d');
  let maxDepth = o.values.has('d') ? Number(o.values.get('d')) : Infinity;
  if (Number.isNaN(maxDepth)) throw new UsageError(`invalid depth '${o.values.get('d')}'`);
  // zfs_do_list: with no -t every type may be named, but below an operand snapshots show only with the pool's
  // listsnapshots=on (off here); `-t snapshot ds` without -r/-d lists ds's own snapshots (depth 1)
  const explicit = o.values.has('t');
  const typeSet = types(o.values.get('t'), ['filesystem', 'volume', 'snapshot']);
  const below = explicit ? typeSet : new Set<SimDataset['type']>(['filesystem', 'volume']);
  if (explicit && typeSet.size === 1 && typeSet.has('snapshot') && o.operands.length && !recursive) [recursive, maxDepth] = [true, 1];
  const { rows, errors } = select(ctx.state, o.operands, recursive, maxDepth, typeSet, below);
  const sorted = sortRows(ctx.state, rows, sortKeys(ctx.args));
  const parsable = o.flags.has('p');
  const cells = sorted.map((d) => cols.map((c) => datasetValue(ctx.state, d, c, parsable)));
  if (o.flags.has('H')) return { code: errors ? 1 : 0, stdout: cells.map((r) => r.join('\t') + '\n').join(''), stderr: errors };
  if (!cells.length) return { code: errors ? 1 : 0, stderr: errors || 'no datasets available\n' };
  const headers = cols.map((c) => DATASET_PROPS[c]?.header ?? c.toUpperCase());
  return {
    code: errors ? 1 : 0,
    stdout: table(
      headers,
      cells,
      cols.map((c) => Boolean(DATASET_PROPS[c]?.numeric) && c !== 'guid' && c !== 'creation'),
    ),
    stderr: errors,
  };
}

// ---- zfs get [-rHp] [-d depth] [-o field[,...]] [-t type[,...]] all|property[,...] [dataset]...
function get(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'Hprd:o:s:t:');
  const [propSpec, ...names] = o.operands;
  if (!propSpec) throw new UsageError('missing property argument');
  const fields = (o.values.get('o') ?? 'name,property,value,source').split(',');
  for (const f of fields) if (!['name', 'property', 'value', 'received', 'source'].includes(f)) throw new UsageError(`invalid field '${f}'`);
  const recursive = o.flags.has('r') || o.values.has('d');
  const maxDepth = o.values.has('d') ? Number(o.values.get('d')) : Infinity;
  const typeSet = types(o.values.get('t'), ['filesystem', 'volume', 'snapshot']);
  const { rows, errors } = select(ctx.state, names, recursive, maxDepth, typeSet);
  const parsable = o.flags.has('p');
  const out: string[][] = [];
  for (const d of rows) {
    const list =
      propSpec === 'all' ? [...new Set([...Object.keys(DATASET_PROPS).filter((p) => p !== 'name'), ...Object.keys(d.properties ?? {})])] : props(propSpec, []);
    for (const p of list) {
      const cell = { name: d.name, property: p, value: datasetValue(ctx.state, d, p, parsable), received: '-', source: datasetSource(ctx.state, d, p) };
      out.push(fields.map((f) => cell[f as keyof typeof cell]));
    }
  }
  const stdout = propertyListing(fields, out, o.flags.has('H'));
  return { code: errors ? 1 : 0, stdout, stderr: errors };
}

registerSubcommand(
  'zfs',
  'list',
  withUsage(list, '\tlist [-Hp] [-r|-d max] [-o property[,...]] [-s property]...\n\t    [-S property]... [-t type[,...]] [filesystem|volume|snapshot] ...'),
);
registerSubcommand(
  'zfs',
  'get',
  withUsage(
    get,
    '\tget [-rHp] [-d max] [-o "all" | field[,...]]\n\t    [-t type[,...]] [-s source[,...]]\n\t    <"all" | property[,...]> [filesystem|volume|snapshot|bookmark] ...',
  ),
);
