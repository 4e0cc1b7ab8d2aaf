import type { JailHooks } from './hooks.ts';

/**
 * Jails as the agent reports them and the store holds them. A managed jail lives on its host as
 * `/etc/jail.conf.d/<name>.conf` (what `service jail start <name>` reads on FreeBSD 14) whose header names its
 * CTID and dataset, plus per-phase hook scripts and a resource-limits script under
 * `/usr/local/etc/hostmgr/jails/<ctid>/` (see agent/drivers/jail-layout.ts).
 */
const JAIL_STATES = ['running', 'stopped'] as const;
type JailState = (typeof JAIL_STATES)[number];

/** One jail in the agent's inventory (`HostInventory.jails`). */
export interface JailInventory {
  /** the guest id (1–9999, unique across the cluster) */
  ctid: number;
  name: string;
  state: JailState;
  /** kernel jail id while running (`jls`), else null */
  jid: number | null;
  hostname: string;
  path: string;
  /** the ZFS dataset holding the jail's root, null when the jail is not on ZFS */
  dataset: string | null;
  /** what the jail's conf wires and its hook scripts hold */
  hooks: JailHooks;
  /** CPUs the post-start limits pin the jail to; [] = not pinned */
  cpuSet: number[];
  /** `rctl` memoryuse limit in bytes; 0 = none */
  memoryBytes: number;
  /** current memoryuse of a running jail (`rctl -u`), in bytes; null when stopped */
  memoryUsedBytes: number | null;
}

/**
 * `guests.config` of a jail row. `hooks`, `cores`, `cpuSet` and `memoryBytes` are the persisted (desired)
 * configuration that E3/E4 write and the agent re-applies at start; `host` is the last inventory entry.
 */
export interface JailConfig {
  dataset: string | null;
  path: string;
  hostname: string;
  jid: number | null;
  hooks: JailHooks;
  /** CPU-core limit; null = not limited */
  cores: number | null;
  cpuSet: number[];
  memoryBytes: number;
  host: JailInventory;
}

/** The Jail CPU limit record (E4's response). */
export interface JailCpuLimit {
  cores: number;
  cpuSet: number[];
  ctId: number;
  /** memory limit in bytes (0 = none) */
  memory: number;
  resourceLimits: boolean;
}
