import { randomBytes } from 'node:crypto';
import type { SimHost, SimPool } from '#shared/seed/host/schema';
import { diskOfProvider } from './geom-model.ts';

/**
 * The pool model the zpool commands share: a uniform vdev node, derived states (as ZFS derives an interior
 * vdev's state from its children), sizes, device lookup and free disks.
 */
export interface VNode {
  type: 'disk' | 'file' | 'mirror' | 'raidz1' | 'raidz2' | 'raidz3' | 'replacing';
  name?: string;
  guid?: string;
  state?: 'ONLINE' | 'DEGRADED' | 'FAULTED' | 'OFFLINE' | 'UNAVAIL' | 'REMOVED';
  sizeBytes?: number;
  errors?: { read?: number; write?: number; cksum?: number };
  resilvering?: boolean;
  children?: VNode[];
}

export type Section = 'data' | 'logs' | 'cache';

export const isLeaf = (v: VNode) => v.type === 'disk' || v.type === 'file';

/** A random non-zero 64-bit GUID in decimal, as ZFS prints them. */
export function newGuid(): string {
  let g = 0n;
  while (g === 0n) g = randomBytes(8).readBigUInt64BE();
  return g.toString();
}

/** A device argument as zpool accepts it: `ada1` or `/dev/ada1`. */
export const devName = (arg: string) => (arg.startsWith('/dev/') ? arg.slice(5) : arg);

/** The whole-disk name a partition or slice belongs to: ada0p3 → ada0, da1s1a → da1. */
export const baseDisk = (name: string) => name.replace(/(p\d+|s\d+[a-h]?)$/, '');

export function sectionVdevs(pool: SimPool, section: Section): VNode[] {
  return ((section === 'data' ? pool.vdevs : section === 'logs' ? pool.logs : pool.cache) ?? []) as VNode[];
}

export interface Located {
  node: VNode;
  parent: VNode | null;
  /** index in the parent's children (or in the section's list at the top) */
  index: number;
  depth: number;
  section: Section;
}

/** Every vdev of the pool, depth first, data vdevs then logs then cache. */
export function* walk(pool: SimPool): Generator<Located> {
  for (const section of ['data', 'logs', 'cache'] as const) {
    const top = sectionVdevs(pool, section);
    const visit = function* (node: VNode, parent: VNode | null, index: number, depth: number): Generator<Located> {
      yield { node, parent, index, depth, section };
      for (const [i, c] of (node.children ?? []).entries()) yield* visit(c, node, i, depth + 1);
    };
    for (const [i, v] of top.entries()) yield* visit(v, null, i, 0);
  }
}

/**
 * The name zpool prints: leaves by device name, interior vdevs `<type>-<id>` where a top-level vdev's id
 * counts data and log vdevs together (as vdev ids do) and a replacing vdev's id is its position.
 */
export function displayName(pool: SimPool, loc: Located): string {
  const { node, parent, index, section } = loc;
  if (isLeaf(node)) return node.name ?? node.guid ?? '?';
  if (parent) return `${node.type}-${index}`;
  const id = section === 'logs' ? pool.vdevs.length + index : index;
  return `${node.type}-${id}`;
}

const FAILED = new Set(['FAULTED', 'OFFLINE', 'UNAVAIL', 'REMOVED']);

/** A vdev's state as ZFS derives it: mirrors/replacing need one healthy child, raidzN tolerates N failures. */
export function nodeState(node: VNode): string {
  if (isLeaf(node)) return node.state ?? 'ONLINE';
  const states = (node.children ?? []).map(nodeState);
  const failed = states.filter((s) => FAILED.has(s)).length;
  const healthy = states.filter((s) => s === 'ONLINE').length;
  if (failed === 0 && healthy === states.length) return 'ONLINE';
  if (node.type.startsWith('raidz')) {
    const parity = Number(node.type.slice(5));
    return failed > parity ? 'UNAVAIL' : 'DEGRADED';
  }
  return failed === states.length ? 'UNAVAIL' : 'DEGRADED';
}

/** The pool's state (and `zpool list` HEALTH): UNAVAIL if a data vdev is, DEGRADED if anything is not ONLINE. */
export function poolState(pool: SimPool): string {
  const data = sectionVdevs(pool, 'data').map(nodeState);
  if (data.some((s) => FAILED.has(s))) return 'UNAVAIL';
  const others = [...sectionVdevs(pool, 'logs'), ...sectionVdevs(pool, 'cache')].map(nodeState);
  return [...data, ...others].every((s) => s === 'ONLINE') ? 'ONLINE' : 'DEGRADED';
}

export function leafSize(host: SimHost, leaf: VNode): number {
  if (leaf.sizeBytes !== undefined) return leaf.sizeBytes;
  const name = leaf.name ?? '';
  return host.disks.find((d) => d.name === name)?.sizeBytes ?? 0;
}

function capacity(host: SimHost, node: VNode): number {
  if (isLeaf(node)) return leafSize(host, node);
  const sizes = (node.children ?? []).map((c) => capacity(host, c));
  const smallest = sizes.length ? Math.min(...sizes) : 0;
  return node.type.startsWith('raidz') ? smallest * sizes.length : smallest;
}

const MIB16 = 16 * 1024 * 1024;

/** Pool SIZE: the data vdevs' raw capacity less labels and boot reserve, in whole 16 MiB metaslab units. */
export function poolSize(host: SimHost, pool: SimPool): number {
  const raw = sectionVdevs(pool, 'data').reduce((sum, v) => sum + capacity(host, v), 0);
  return Math.floor((raw * 0.995) / MIB16) * MIB16;
}

export function poolFree(host: SimHost, pool: SimPool): number {
  return Math.max(0, poolSize(host, pool) - pool.allocatedBytes);
}

/** Space datasets can still use: free less the slop space ZFS keeps back (1/32 of the pool). */
export function poolAvailable(host: SimHost, pool: SimPool): number {
  const size = poolSize(host, pool);
  return Math.max(0, poolFree(host, pool) - Math.floor(size / 32));
}

/** Finds a leaf by name, `/dev/` path or GUID (as `zpool replace` accepts). */
export function findLeaf(pool: SimPool, arg: string): Located | undefined {
  const name = devName(arg);
  for (const loc of walk(pool)) {
    if (!isLeaf(loc.node)) continue;
    if (loc.node.name === name || loc.node.guid === arg) return loc;
  }
  return undefined;
}

/**
 * Pool and leaf holding a device, across all pools: a partition, its GPT label or its GELI provider counts for
 * the disk it lives on (the GEOM tree, geom-model.ts), else a partition name for its whole disk.
 */
export function deviceOwner(host: SimHost, name: string): { pool: SimPool; loc: Located; exact: boolean } | undefined {
  for (const pool of host.pools) {
    for (const loc of walk(pool)) {
      if (!isLeaf(loc.node) || !loc.node.name) continue;
      if (loc.node.name === name) return { pool, loc, exact: true };
      if ((diskOfProvider(host, loc.node.name) ?? baseDisk(loc.node.name)) === name) return { pool, loc, exact: false };
    }
  }
  return undefined;
}

/** Disks of the host that no pool uses, whole or through a partition. */
export function freeDisks(host: SimHost): string[] {
  return host.disks.map((d) => d.name).filter((d) => !deviceOwner(host, d));
}

/** Fills GUIDs missing from the seed (pools, every vdev). */
export function assignPoolGuids(pool: SimPool): void {
  pool.guid ??= newGuid();
  for (const { node } of walk(pool)) node.guid ??= newGuid();
}
