import type { SimHost } from '#shared/seed/host/schema';
import { getopt } from '../format.ts';
import { fail, registerCommand, withUsage } from '../registry.ts';
import { DATASET_PROPS, isMounted, mountPath } from '../dataset-model.ts';
import { isDir, isFile } from '../file-tree.ts';

/**
 * df(1) of FreeBSD (bin/df/df.c) for named paths, with -k (1024-byte blocks, getbsize's `1024-blocks` header):
 * the filesystem holding each path, in prtstat's layout — `Filesystem`, then the size, Used and Avail columns
 * right-aligned to their widest cell (at least the header), `Capacity` as `%5.0f%%` of used / (used + avail),
 * two spaces, `Mounted on`. A path is on the mounted ZFS filesystem with the longest mountpoint above it (its
 * size is used + available, as statfs reports a ZFS filesystem); a path no mounted dataset covers is on a UFS root
 * the simulator makes up from the first seeded disk (`/dev/<disk>p2`, the disk's size, nothing used).
 */
interface Fs {
  from: string;
  on: string;
  total: number;
  used: number;
  avail: number;
}

function fsOf(host: SimHost, path: string): Fs {
  let best: { ds: SimHost['datasets'][number]; mp: string } | null = null;
  for (const ds of host.datasets) {
    if (ds.type !== 'filesystem' || !isMounted(host, ds)) continue;
    const mp = mountPath(host, ds)!;
    const under = mp === '/' || path === mp || path.startsWith(`${mp}/`);
    if (under && (!best || mp.length > best.mp.length)) best = { ds, mp };
  }
  if (best) {
    const used = Number(DATASET_PROPS.referenced.value(host, best.ds) ?? 0);
    const avail = Number(DATASET_PROPS.available.value(host, best.ds) ?? 0);
    return { from: best.ds.name, on: best.mp, total: used + avail, used, avail };
  }
  const disk = host.disks[0];
  return { from: `/dev/${disk?.name ?? 'ada0'}p2`, on: '/', total: disk?.sizeBytes ?? 0, used: 0, avail: disk?.sizeBytes ?? 0 };
}

registerCommand(
  'df',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'abcgHhiklmnPt:T,');
    if (!o.flags.has('k')) return fail('df: only -k is simulated', 64);
    if (!o.operands.length) return fail('df: only named paths are simulated', 64);
    let err = '';
    const rows: string[][] = [];
    for (const p of o.operands) {
      // a mounted filesystem's mountpoint (and every directory above it) exists, files in it or not
      const mountDir = ctx.state.datasets.some((d) => {
        const mp = d.type === 'filesystem' && isMounted(ctx.state, d) ? mountPath(ctx.state, d) : null;
        return mp !== null && (mp === p || mp.startsWith(`${p}/`));
      });
      if (!mountDir && !isDir(ctx.state, p) && !isFile(ctx.state, p)) {
        err += `df: ${p}: No such file or directory\n`;
        continue;
      }
      const fs = fsOf(ctx.state, p);
      const k = (n: number) => String(Math.ceil(n / 1024));
      const pct = fs.used + fs.avail === 0 ? 100 : (fs.used / (fs.used + fs.avail)) * 100;
      rows.push([fs.from, k(fs.total), k(fs.used), k(fs.avail), `${pct.toFixed(0).padStart(5)}%`, fs.on]);
    }
    let out = '';
    if (rows.length) {
      const w = (i: number, min: number) => Math.max(min, ...rows.map((r) => r[i].length));
      const [wf, wt, wu, wa] = [w(0, 'Filesystem'.length), w(1, '1024-blocks'.length), w(2, 4), w(3, 5)];
      out += `${'Filesystem'.padEnd(wf)} ${'1024-blocks'.padStart(wt)} ${'Used'.padStart(wu)} ${'Avail'.padStart(wa)} Capacity  Mounted on\n`;
      for (const r of rows) out += `${r[0].padEnd(wf)} ${r[1].padStart(wt)} ${r[2].padStart(wu)} ${r[3].padStart(wa)} ${r[4]}  ${r[5]}\n`;
    }
    return { code: err ? 1 : 0, stdout: out, stderr: err };
  }, '\tdf [-b | -g | -H | -h | -k | -m | -P] [-acilnT] [-t type] [-,] [file | filesystem ...]'),
);
