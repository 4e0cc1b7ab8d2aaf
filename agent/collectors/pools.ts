import type { Executor } from '../executors/executor.ts';
import type { PoolInventory, PoolVdev } from '#shared/agent-api/inventory';
import { leafVdevs, listPools, poolStatus, poolSummary, type StatusVdev, type ZpoolStatus } from '../drivers/zfs/pools.ts';

/**
 * Pools with their vdev trees and GUIDs: `zpool list` for sizes and pool GUIDs, `zpool status` for the
 * tree and `zpool status -g` (same tree, GUIDs for names) for every vdev's GUID.
 */

const SECTION_TYPE: Record<string, PoolVdev['type']> = { logs: 'log', cache: 'cache', spares: 'spare', special: 'special', dedup: 'dedup' };

function vdevType(v: StatusVdev): PoolVdev['type'] {
  const m = /^(mirror|raidz[123]?|replacing|spare)-\d+$/.exec(v.name);
  if (m) return m[1] === 'raidz' ? 'raidz1' : (m[1] as PoolVdev['type']);
  return v.name.startsWith('/') ? 'file' : 'disk';
}

/** A missing device prints as its GUID with `was /dev/ada1p3`: report it by that device name. */
function deviceName(v: StatusVdev): string {
  const was = /^was (\/dev\/)?(.+)$/.exec(v.note ?? '');
  return was ? was[2] : v.name.replace(/^\/dev\//, '');
}

function toInventory(named: StatusVdev, byGuid: StatusVdev | undefined): PoolVdev {
  const out: PoolVdev = { name: named.children.length ? named.name : deviceName(named), type: vdevType(named), state: named.state };
  if (named.read !== null && named.write !== null && named.cksum !== null)
    out.errors = { read: Math.round(named.read), write: Math.round(named.write), cksum: Math.round(named.cksum) };
  if (named.note) out.note = named.note.slice(0, 1024);
  if (byGuid && /^\d+$/.test(byGuid.name)) out.guid = byGuid.name;
  if (named.children.length) out.children = named.children.map((c, i) => toInventory(c, byGuid?.children[i]));
  return out;
}

export function poolVdevs(named: ZpoolStatus, byGuid: ZpoolStatus | undefined): PoolVdev[] {
  const top = named.root.children.map((c, i) => toInventory(c, byGuid?.root.children[i]));
  for (const [section, list] of Object.entries(named.sections)) {
    const guids = byGuid?.sections[section];
    top.push({ name: section, type: SECTION_TYPE[section] ?? 'disk', state: '-', children: list.map((c, i) => toInventory(c, guids?.[i])) });
  }
  return top;
}

/** The pool's scrub or resilver as the console shows it; nothing when zpool reports none. */
export function poolScan(status: ZpoolStatus): Pick<PoolInventory, 'scan'> {
  const s = status.scan;
  if (s.state === 'none' && !s.function) return {};
  const percentDone = s.percentDone === null ? null : Math.min(100, Math.max(0, s.percentDone));
  return { scan: { function: s.function, state: s.state, percentDone, ...(s.errors === undefined ? {} : { errors: s.errors }), text: s.text.slice(0, 4096) } };
}

/** Device names a pool occupies (leaves, missing ones by their last path). */
function poolDevices(status: ZpoolStatus): string[] {
  return leafVdevs(status).map(deviceName);
}

interface CollectedPools {
  pools: PoolInventory[];
  /** device names in use by any pool */
  devices: string[];
}

export async function collectPools(exec: Executor): Promise<CollectedPools> {
  const list = await listPools(exec);
  const pools: PoolInventory[] = [];
  const devices: string[] = [];
  for (const p of list) {
    const named = await poolStatus(exec, p.name);
    const byGuid = await poolStatus(exec, p.name, { guids: true });
    devices.push(...poolDevices(named));
    pools.push({ ...poolSummary(p), vdevs: poolVdevs(named, byGuid), ...poolScan(named) });
  }
  return { pools, devices };
}

/** The whole-disk name of a partition or slice: ada0p3 → ada0, da1s1a → da1. */
export const baseDisk = (name: string) => name.replace(/(p\d+|s\d+[a-h]?)$/, '');

/**
 * Disks (`kern.disks`) that no pool uses, whole or through anything GEOM stacks on them: each pool device is
 * resolved to its disk through the GEOM tree (`geom`, from kern.geom.conftxt), so a GELI provider
 * (`ada0p3.eli`), a GPT label (`gpt/…`, `gptid/…`) or a disk-ident label (`diskid/…`) makes its disk busy; a
 * name GEOM does not know falls back to its partition/slice suffix. CD drives are left out. A disk holding only
 * UFS or swap partitions is not recognised as busy (zpool would refuse it at replace time).
 */
export function freeDisks(kernDisks: string, usedDevices: string[], geom: Map<string, string> = new Map()): string[] {
  const used = new Set(usedDevices.flatMap((d) => [d, geom.get(d) ?? baseDisk(d)]));
  return kernDisks
    .split(/\s+/)
    .filter((d) => d && !/^cd\d+$/.test(d) && !used.has(d))
    .sort();
}
