import type { JailInventory } from './jails/types.ts';
import type { VmInventory } from './vms/types.ts';
import type { PciDeviceInventory } from './ppt/types.ts';
import type { HostGroupInventory, HostUserInventory } from './groups/types.ts';
import type { RouteTable } from './network/routes.ts';
import type { HostCapabilities } from './capabilities.ts';

/**
 * What an agent reports about its host: at start, on change, and what the control plane
 * validates requests against. Sections are optional so that each capability adds its own; the whole
 * object is stored as `nodes.inventory` (jsonb) and some sections are also projected into tables.
 */
export interface PoolVdev {
  /** device or vdev name as zpool prints it: `ada1p3`, `mirror-0`, `raidz2-0` */
  name: string;
  guid?: string;
  /**
   * `log`, `cache`, `spare`, `special`, `dedup` also name the pseudo-vdevs that group a pool's `logs`, `cache`,
   * `spares`, `special` and `dedup` sections (their children are the section's vdevs); `spare` is also a
   * `spare-N` vdev while a hot spare stands in
   */
  type: 'disk' | 'file' | 'mirror' | 'raidz1' | 'raidz2' | 'raidz3' | 'spare' | 'log' | 'cache' | 'special' | 'dedup' | 'replacing';
  state: string;
  children?: PoolVdev[];
}

export interface PoolInventory {
  name: string;
  guid: string;
  health: string;
  size: number;
  allocated: number;
  free: number;
  vdevs: PoolVdev[];
}

export interface DatasetInventory {
  name: string;
  type: 'filesystem' | 'volume' | 'snapshot';
  used: number;
  available: number;
  /** zvols only */
  volsize?: number;
}

export interface TunableInventory {
  name: string;
  /** sysctl -t type names: integer, unsigned integer, long, unsigned long, int64_t, uint64_t, string, boolean … */
  type: string;
  value: string;
  writable: boolean;
  description?: string;
}

/**
 * The most CPUs a host may report: E4's `cores` bound. FreeBSD's kernels are built with MAXCPU 1024 on amd64 and
 * arm64 (sys/<arch>/include/param.h), so a report beyond this is not a host's: refused (400) at the agent
 * endpoints, and a stored one read as not reported.
 */
export const MAX_HOST_CPUS = 4096;

/** The reported CPU count if it is a plausible one (an integer 1..MAX_HOST_CPUS), else null. */
export const reportedCpus = (raw: unknown): number | null =>
  Number.isSafeInteger(raw) && (raw as number) >= 1 && (raw as number) <= MAX_HOST_CPUS ? (raw as number) : null;

export interface HostInventory {
  hostname: string;
  os: string;
  cpus: number;
  memoryBytes: number;
  pools?: PoolInventory[];
  datasets?: DatasetInventory[];
  tunables?: TunableInventory[];
  /** free disks (not in any pool), for device replacement */
  disks?: string[];
  /** managed jails (shared/domain/jails/types.ts) */
  jails?: JailInventory[];
  /** VMs: libvirt domains named by RID and orphaned registrations (shared/domain/vms/types.ts) */
  vms?: VmInventory[];
  /** PCI devices from `pciconf -lv` (shared/domain/ppt/types.ts) */
  pciDevices?: PciDeviceInventory[];
  /** host users with their primary group, and groups with their members (`pw usershow -a`, `pw groupshow -a`) */
  users?: HostUserInventory[];
  groups?: HostGroupInventory[];
  /** routing tables, one per FIB (shared/domain/network/routes.ts) */
  routes?: RouteTable[];
  /** what the host can do: release, __FreeBSD_version, RACCT, OpenZFS and libvirt versions (./capabilities.ts) */
  capabilities?: HostCapabilities;
  // further sections (pciDevices, users, groups …) are added by their capabilities
  [section: string]: unknown;
}
