import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { nicenum } from './format.ts';
import { poolAvailable } from './pool-model.ts';

/**
 * Datasets, zvols and snapshots as zfs(8) reports them: hierarchy order, derived space accounting
 * (usedbychildren from the children, avail from the pool) and the property table `zfs list/get` share.
 */

export const poolOf = (name: string) => name.split(/[/@]/)[0];
export const parentOf = (name: string) =>
  name.includes('@') ? name.slice(0, name.indexOf('@')) : name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : null;

/**
 * zfs list/get's order (cmd/zfs/zfs_iter.c zfs_compare, zfs-2.3.2; the same in 2.2.7 and 2.4): the names before
 * `@` compared by strcmp — so `tank/a-x` comes before `tank/a/b` ('-' < '/') — and a dataset before its snapshots.
 */
export function compareDatasets(a: string, b: string): number {
  const [fa, sa = ''] = a.split('@');
  const [fb, sb = ''] = b.split('@');
  if (fa !== fb) return fa < fb ? -1 : 1;
  if (!sa || !sb) return sa ? 1 : sb ? -1 : 0;
  return 0; // snapshots of one dataset keep their (creation) order
}

/** A snapshot's volsize: the one recorded when it was taken, else its volume's; a filesystem's snapshot has none. */
function snapshotVolsize(host: SimHost, snap: SimDataset): number | null {
  const origin = findDataset(host, snap.name.slice(0, snap.name.indexOf('@')));
  return origin?.type === 'volume' ? (snap.volsizeBytes ?? origin.volsizeBytes ?? 0) : null;
}

export function sortedDatasets(host: SimHost): SimDataset[] {
  return host.datasets
    .map((d, i) => ({ d, i }))
    .sort((x, y) => compareDatasets(x.d.name, y.d.name) || x.i - y.i)
    .map((x) => x.d);
}

/** A filesystem or volume and every filesystem and volume below it (no snapshots). */
export const descendants = (host: SimHost, name: string) =>
  host.datasets.filter((d) => d.type !== 'snapshot' && (d.name === name || d.name.startsWith(`${name}/`)));

export function findDataset(host: SimHost, name: string): SimDataset | undefined {
  return host.datasets.find((d) => d.name === name);
}

function usedByChildren(host: SimHost, ds: SimDataset): number {
  if (ds.type === 'snapshot') return 0;
  return host.datasets.filter((d) => d.type !== 'snapshot' && parentOf(d.name) === ds.name).reduce((s, d) => s + d.usedBytes, 0);
}

function available(host: SimHost, ds: SimDataset): number | null {
  if (ds.type === 'snapshot') return null;
  const pool = host.pools.find((p) => p.name === poolOf(ds.name));
  return pool ? poolAvailable(host, pool) : 0;
}

export interface DatasetProp {
  header: string;
  value: (h: SimHost, d: SimDataset) => number | string | null;
  numeric?: boolean;
  source?: (h: SimHost, d: SimDataset) => string;
}

/**
 * A filesystem's mountpoint property: its own value (`local`), else the nearest ancestor's that sets one with
 * the rest of the name appended (`inherited from <ancestor>`; `none` and `legacy` inherit as they are), else
 * `/<name>` (`default`). Null for volumes and snapshots.
 */
export function mountpointProperty(host: SimHost, d: SimDataset): { value: string; source: string } | null {
  const own = storedMountpoint(host, d);
  return own && { value: underAltroot(host, d, own.value), source: own.source };
}

function storedMountpoint(host: SimHost, d: SimDataset): { value: string; source: string } | null {
  if (d.type !== 'filesystem') return null;
  if (d.mountpoint !== undefined) return { value: d.mountpoint, source: 'local' };
  for (let anc = parentOf(d.name); anc; anc = parentOf(anc)) {
    const a = findDataset(host, anc);
    if (a?.mountpoint === undefined) continue;
    const value = a.mountpoint === 'none' || a.mountpoint === 'legacy' ? a.mountpoint : `${a.mountpoint.replace(/\/+$/, '')}${d.name.slice(anc.length)}`;
    return { value, source: `inherited from ${anc}` };
  }
  return { value: `/${d.name}`, source: 'default' };
}

/**
 * A mountpoint path as zfs shows and mounts it on a pool with an altroot (openzfs lib/libzfs/libzfs_dataset.c
 * zfs_prop_get, ZFS_PROP_MOUNTPOINT): the altroot in front, an altroot of `/` adding nothing, a mountpoint of
 * `/` becoming the altroot itself. What `zfs set` stores stays without it.
 */
function underAltroot(host: SimHost, d: SimDataset, value: string): string {
  const altroot = host.pools.find((p) => p.name === poolOf(d.name))?.properties?.altroot;
  if (!altroot || altroot === '-' || !value.startsWith('/')) return value;
  const root = altroot === '/' ? '' : altroot.replace(/\/+$/, '');
  if (root === '') return value;
  return value === '/' ? root : `${root}${value}`;
}

/** Where a filesystem mounts: its mountpoint path, or null (`none`, `legacy`, not a filesystem). */
export function mountPath(host: SimHost, d: SimDataset): string | null {
  const mp = mountpointProperty(host, d)?.value;
  return mp && mp !== 'none' && mp !== 'legacy' ? mp : null;
}

/**
 * An inheritable property's effective value: the dataset's own, else the nearest ancestor's, else `dflt`
 * (zfs_prop.c registers e.g. `overlay` with PROP_INHERIT and default on).
 */
export function inheritedProperty(host: SimHost, d: SimDataset, prop: string, dflt: string): string {
  for (let name: string | null = d.name.split('@')[0]; name; name = parentOf(name)) {
    const v = findDataset(host, name)?.properties?.[prop];
    if (v !== undefined) return v;
  }
  return dflt;
}

/** Where an inheritable property's value comes from: `local`, `inherited from <ancestor>` or `default`. */
export function inheritedSource(host: SimHost, d: SimDataset, prop: string): string {
  if (d.properties?.[prop] !== undefined) return 'local';
  for (let anc = parentOf(d.name.split('@')[0]); anc; anc = parentOf(anc))
    if (findDataset(host, anc)?.properties?.[prop] !== undefined) return `inherited from ${anc}`;
  return 'default';
}

/** The canmount property of a filesystem (`on` unless set). */
export const canmountOf = (d: SimDataset) => d.properties?.canmount ?? 'on';

/**
 * Whether a filesystem is mounted: one that can be (a mountpoint path, canmount not `off`) is, unless it was
 * received with `zfs recv -u` or unmounted since (`mounted: false`; an absent flag means mounted).
 */
export function isMounted(host: SimHost, d: SimDataset): boolean {
  return mountPath(host, d) !== null && canmountOf(d) !== 'off' && d.mounted !== false;
}

/**
 * The encryption properties as zfs get prints them (module/zcommon/zfs_prop.c zfs_prop_init): `encryption`
 * (PROP_ONETIME, default off) and `keyformat` (PROP_ONETIME_DEFAULT, default none) are fixed at creation and show
 * source `-` once set; `keylocation` (PROP_DEFAULT, default none) is `local` on an encryption root; `encryptionroot`
 * and `keystatus` are read-only, `-` on an unencrypted dataset. A simulated encrypted dataset carries them in
 * `properties`.
 */
const own = (d: SimDataset, p: string) => d.properties?.[p];
const encrypted = (d: SimDataset) => (own(d, 'encryption') ?? 'off') !== 'off';
const ENCRYPTION_PROPS: Record<string, DatasetProp> = {
  encryption: { header: 'ENCRYPTION', value: (_h, d) => own(d, 'encryption') ?? 'off', source: (_h, d) => (encrypted(d) ? '-' : 'default') },
  keyformat: {
    header: 'KEYFORMAT',
    value: (_h, d) => (d.type === 'snapshot' ? null : (own(d, 'keyformat') ?? 'none')),
    source: (_h, d) => (d.type === 'snapshot' ? '-' : encrypted(d) ? '-' : 'default'),
  },
  keylocation: {
    header: 'KEYLOCATION',
    value: (_h, d) => (d.type === 'snapshot' ? null : (own(d, 'keylocation') ?? 'none')),
    source: (_h, d) => (d.type === 'snapshot' ? '-' : (own(d, 'keylocation') ?? 'none') !== 'none' ? 'local' : 'default'),
  },
  encryptionroot: { header: 'ENCROOT', value: (_h, d) => (encrypted(d) ? (own(d, 'encryptionroot') ?? null) : null), source: () => '-' },
  keystatus: { header: 'KEYSTATUS', value: (_h, d) => (encrypted(d) ? (own(d, 'keystatus') ?? 'available') : null), source: () => '-' },
};

const bytes = (fn: (h: SimHost, d: SimDataset) => number | null): DatasetProp => ({ header: '', value: fn, numeric: true });

export const DATASET_PROPS: Record<string, DatasetProp> = {
  name: { header: 'NAME', value: (_h, d) => d.name },
  type: { header: 'TYPE', value: (_h, d) => d.type },
  used: { ...bytes((_h, d) => d.usedBytes), header: 'USED' },
  available: { ...bytes(available), header: 'AVAIL' },
  referenced: { ...bytes((_h, d) => d.referencedBytes ?? d.usedBytes), header: 'REFER' },
  usedbysnapshots: { ...bytes((_h, d) => (d.type === 'snapshot' ? null : (d.usedBySnapshotsBytes ?? 0))), header: 'USEDSNAP' },
  usedbychildren: { ...bytes((h, d) => (d.type === 'snapshot' ? null : usedByChildren(h, d))), header: 'USEDCHILD' },
  usedbydataset: {
    ...bytes((h, d) => (d.type === 'snapshot' ? null : Math.max(0, d.usedBytes - usedByChildren(h, d) - (d.usedBySnapshotsBytes ?? 0)))),
    header: 'USEDDS',
  },
  usedbyrefreservation: { ...bytes((_h, d) => (d.type === 'snapshot' ? null : 0)), header: 'USEDREFRESERV' },
  // a volume's snapshot has the volsize the volume had when it was taken (module/zcommon/zfs_prop.c
  // zfs_prop_init, zfs-2.3.2: volsize is registered for ZFS_TYPE_SNAPSHOT | ZFS_TYPE_VOLUME)
  volsize: { ...bytes((h, d) => (d.type === 'volume' ? (d.volsizeBytes ?? 0) : d.type === 'snapshot' ? snapshotVolsize(h, d) : null)), header: 'VOLSIZE' },
  mountpoint: {
    header: 'MOUNTPOINT',
    value: (h, d) => mountpointProperty(h, d)?.value ?? null,
    source: (h, d) => mountpointProperty(h, d)?.source ?? '-',
  },
  canmount: {
    header: 'CANMOUNT',
    value: (_h, d) => (d.type === 'filesystem' ? canmountOf(d) : null),
    source: (_h, d) => (d.type !== 'filesystem' ? '-' : d.properties?.canmount !== undefined ? 'local' : 'default'),
  },
  mounted: { header: 'MOUNTED', value: (h, d) => (d.type === 'filesystem' ? (isMounted(h, d) ? 'yes' : 'no') : null), source: () => '-' },
  overlay: {
    header: 'OVERLAY',
    value: (h, d) => (d.type === 'filesystem' ? inheritedProperty(h, d, 'overlay', 'on') : null),
    source: (h, d) => (d.type !== 'filesystem' ? '-' : inheritedSource(h, d, 'overlay')),
  },
  ...ENCRYPTION_PROPS,
  guid: { header: 'GUID', value: (_h, d) => d.guid ?? null, numeric: true, source: () => '-' },
  creation: { header: 'CREATION', value: (_h, d) => d.creation ?? null, numeric: true, source: () => '-' },
  // snapshots only: the number of user holds, and the datasets cloned from it (their `origin`), comma-separated
  userrefs: { header: 'USERREFS', value: (_h, d) => (d.type === 'snapshot' ? String(Object.keys(d.holds ?? {}).length) : null), source: () => '-' },
  // a snapshot without clones lists `-`, as real OpenZFS 2.3.2 printed in the differential run
  clones: { header: 'CLONES', value: (h, d) => (d.type === 'snapshot' ? clonesOf(h, d.name).join(',') || '-' : null), source: () => '-' },
};

/** The datasets whose `origin` is this snapshot. */
export const clonesOf = (host: SimHost, snapshot: string): string[] =>
  host.datasets.filter((x) => x.type !== 'snapshot' && x.properties?.origin === snapshot).map((x) => x.name);

const ALIASES: Record<string, string> = {
  avail: 'available',
  refer: 'referenced',
  usedsnap: 'usedbysnapshots',
  usedchild: 'usedbychildren',
  usedds: 'usedbydataset',
  usedrefreserv: 'usedbyrefreservation',
};

/** Canonical property name; any other lowercase name is a property the dataset may carry in `properties`. */
export function canonicalDatasetProp(name: string): string | undefined {
  const n = ALIASES[name] ?? name;
  if (DATASET_PROPS[n]) return n;
  return /^[a-z][a-z0-9_:.]*$/.test(n) ? n : undefined;
}

/** A property's value: the -p form (exact numbers, Unix seconds) or the human one; `-` when not applicable. */
export function datasetValue(host: SimHost, ds: SimDataset, prop: string, parsable: boolean): string {
  const def = DATASET_PROPS[prop];
  if (!def) return ds.properties?.[prop] ?? '-';
  const v = def.value(host, ds);
  if (v === null) return '-';
  if (typeof v === 'string') return v;
  if (prop === 'creation') return parsable ? String(v) : new Date(v * 1000).toString().slice(0, 24);
  if (prop === 'guid') return String(v);
  return parsable ? String(v) : nicenum(v);
}

export function datasetSource(host: SimHost, ds: SimDataset, prop: string): string {
  const def = DATASET_PROPS[prop];
  if (def) return def.source ? def.source(host, ds) : '-';
  return ds.properties?.[prop] !== undefined ? 'local' : 'default';
}

export const TYPE_ALIASES: Record<string, SimDataset['type'][]> = {
  filesystem: ['filesystem'],
  fs: ['filesystem'],
  volume: ['volume'],
  vol: ['volume'],
  snapshot: ['snapshot'],
  snap: ['snapshot'],
  all: ['filesystem', 'volume', 'snapshot'],
};
