import type { SimHost, SimPool } from '#shared/seed/host/schema';
import { nicenum } from '../format.ts';
import { poolFree, poolSize, poolState } from '../pool-model.ts';

/**
 * zpool properties as `zpool list` and `zpool get` print them. `raw` is the -p form, `human` the default.
 * Source is what `zpool get` shows in its SOURCE column.
 */
export interface PoolProp {
  header: string;
  raw: (h: SimHost, p: SimPool) => string;
  human?: (h: SimHost, p: SimPool) => string;
  source: (p: SimPool) => string;
  numeric?: boolean;
}

const none = () => '-';
const fixed =
  (v: string): PoolProp['raw'] =>
  () =>
    v;
const capacity = (h: SimHost, p: SimPool) => {
  const size = poolSize(h, p);
  return size ? Math.floor((p.allocatedBytes * 100) / size) : 0;
};
const userProp = (name: string, dflt: string): PoolProp => ({
  header: name.toUpperCase(),
  raw: (_h, p) => p.properties?.[name] ?? dflt,
  source: (p) => (p.properties?.[name] !== undefined ? 'local' : 'default'),
});

export const POOL_PROPS: Record<string, PoolProp> = {
  name: { header: 'NAME', raw: (_h, p) => p.name, source: none },
  size: { header: 'SIZE', raw: (h, p) => String(poolSize(h, p)), human: (h, p) => nicenum(poolSize(h, p)), source: none, numeric: true },
  allocated: { header: 'ALLOC', raw: (_h, p) => String(p.allocatedBytes), human: (_h, p) => nicenum(p.allocatedBytes), source: none, numeric: true },
  free: { header: 'FREE', raw: (h, p) => String(poolFree(h, p)), human: (h, p) => nicenum(poolFree(h, p)), source: none, numeric: true },
  checkpoint: { header: 'CKPOINT', raw: none, source: none, numeric: true },
  expandsize: { header: 'EXPANDSZ', raw: none, source: none, numeric: true },
  fragmentation: {
    header: 'FRAG',
    raw: (_h, p) => String(p.fragmentation ?? 0),
    human: (_h, p) => `${p.fragmentation ?? 0}%`,
    source: none,
    numeric: true,
  },
  capacity: { header: 'CAP', raw: (h, p) => String(capacity(h, p)), human: (h, p) => `${capacity(h, p)}%`, source: none, numeric: true },
  dedupratio: {
    header: 'DEDUP',
    raw: (_h, p) => (p.dedupRatio ?? 1).toFixed(2),
    human: (_h, p) => `${(p.dedupRatio ?? 1).toFixed(2)}x`,
    source: none,
    numeric: true,
  },
  health: { header: 'HEALTH', raw: (_h, p) => poolState(p), source: none },
  // set only by `zpool import -R`/`zpool create -R` (seeded as properties.altroot): `-` otherwise
  altroot: userProp('altroot', '-'),
  // zpool get shows the pool GUID's source as `default` (see test/fixtures/freebsd/zpool-get-all-partial-freebsd.txt)
  guid: { header: 'GUID', raw: (_h, p) => p.guid ?? '', source: () => 'default', numeric: true },
  readonly: { header: 'RDONLY', raw: fixed('off'), source: none },
  version: { header: 'VERSION', raw: none, source: () => 'default' },
  freeing: { header: 'FREEING', raw: fixed('0'), source: none, numeric: true },
  leaked: { header: 'LEAKED', raw: fixed('0'), source: none, numeric: true },
  bootfs: userProp('bootfs', '-'),
  delegation: userProp('delegation', 'on'),
  autoreplace: userProp('autoreplace', 'off'),
  cachefile: userProp('cachefile', '-'),
  failmode: userProp('failmode', 'wait'),
  listsnapshots: userProp('listsnapshots', 'off'),
  autoexpand: userProp('autoexpand', 'off'),
  ashift: userProp('ashift', '0'),
  comment: userProp('comment', '-'),
  autotrim: userProp('autotrim', 'off'),
};

const ALIASES: Record<string, string> = {
  alloc: 'allocated',
  cap: 'capacity',
  frag: 'fragmentation',
  dedup: 'dedupratio',
  ckpoint: 'checkpoint',
  expandsz: 'expandsize',
  rdonly: 'readonly',
};

export const canonicalPoolProp = (name: string): string | undefined => {
  const n = ALIASES[name] ?? name;
  return POOL_PROPS[n] ? n : undefined;
};

/** `zpool list`'s default columns (OpenZFS 2.2). */
export const LIST_DEFAULT = ['name', 'size', 'allocated', 'free', 'checkpoint', 'expandsize', 'fragmentation', 'capacity', 'dedupratio', 'health', 'altroot'];

export function propValue(prop: string, host: SimHost, pool: SimPool, parsable: boolean): string {
  const def = POOL_PROPS[prop];
  return !parsable && def.human ? def.human(host, pool) : def.raw(host, pool);
}
