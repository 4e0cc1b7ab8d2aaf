import type { FromSchema } from 'json-schema-to-ts';
import { capabilitiesSchema } from './capabilities.ts';

/**
 * What an agent reports about its host (PUT /api/agent/inventory, and with its registration): at start, on change,
 * and what the control plane validates requests against. One schema: the endpoints validate it and every type
 * below is derived from it. The head is required; each capability adds its own optional section, and a section
 * the agent could not collect is left out (the control plane keeps what it knew). The whole object is stored as
 * `nodes.inventory` (jsonb) and some sections are also projected into tables.
 */

/**
 * The most CPUs a host may report: E4's `cores` bound. FreeBSD's kernels are built with MAXCPU 1024 on amd64 and
 * arm64 (sys/<arch>/include/param.h), so a report beyond this is not a host's: refused (400) at the agent
 * endpoints, and a stored one read as not reported.
 */
export const MAX_HOST_CPUS = 4096;

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const bytes = { type: 'number', minimum: 0 } as const;
const strings = { type: 'array', items: str } as const;

/**
 * `log`, `cache`, `spare`, `special`, `dedup` also name the pseudo-vdevs that group a pool's `logs`, `cache`,
 * `spares`, `special` and `dedup` sections (their children are the section's vdevs); `spare` is also a `spare-N`
 * vdev while a hot spare stands in
 */
const VDEV_TYPES = ['disk', 'file', 'mirror', 'raidz1', 'raidz2', 'raidz3', 'spare', 'log', 'cache', 'special', 'dedup', 'replacing'] as const;

const vdevFields = {
  /** device or vdev name as zpool prints it: `ada1p3`, `mirror-0`, `raidz2-0` */
  name: str,
  guid: str,
  type: { type: 'string', enum: VDEV_TYPES },
  state: str,
  /** zpool status's READ WRITE CKSUM error counters; left out where it prints none (a section, a spare) */
  errors: {
    type: 'object',
    additionalProperties: false,
    required: ['read', 'write', 'cksum'],
    properties: { read: count, write: count, cksum: count },
  },
  /** what zpool status prints after the counters: `(resilvering)`, `too many errors`, `was /dev/ada1p3` */
  note: { type: 'string', maxLength: 1024 },
} as const;

/** A vdev whose children are `child`s (a vdev tree is recursive; the schema spells out a fixed depth). */
const vdevOver = <C>(child: C) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['name', 'type', 'state'],
    properties: { ...vdevFields, children: { type: 'array', items: child } },
  }) as const;

/** A vdev without children: the bottom of the tree. */
const leafVdev = { type: 'object', additionalProperties: false, required: ['name', 'type', 'state'], properties: vdevFields } as const;

/**
 * Six levels: zpool status nests at most four below the pool (a `logs` section → `mirror-1` → `replacing-0` →
 * device). Every level's type is assignable to every other's, so code may walk the tree recursively as `PoolVdev`.
 */
const vdevSchema = vdevOver(vdevOver(vdevOver(vdevOver(vdevOver(leafVdev)))));

/** The pool's last or running scrub or resilver (zpool status's `scan:`); left out when it has none. */
const scanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['function', 'state', 'percentDone', 'text'],
  properties: {
    function: { type: ['string', 'null'], enum: ['scrub', 'resilver', null] },
    state: { type: 'string', enum: ['none', 'in_progress', 'paused', 'finished', 'canceled'] },
    /** in progress: the `NN.NN% done` figure; finished: 100 */
    percentDone: { type: ['number', 'null'], minimum: 0, maximum: 100 },
    /** finished: the errors it found */
    errors: count,
    /** the scan text as zpool prints it, continuation lines joined with newlines */
    text: { type: 'string', maxLength: 4096 },
  },
} as const;

const poolSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'guid', 'health', 'size', 'allocated', 'free', 'vdevs'],
  properties: {
    name: str,
    guid: str,
    health: str,
    size: bytes,
    allocated: bytes,
    free: bytes,
    vdevs: { type: 'array', items: vdevSchema },
    scan: scanSchema,
  },
} as const;

const datasetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'used', 'available'],
  properties: {
    name: str,
    type: { type: 'string', enum: ['filesystem', 'volume', 'snapshot'] },
    used: bytes,
    available: bytes,
    /** zvols only */
    volsize: bytes,
  },
} as const;

const tunableSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'value', 'writable'],
  properties: {
    name: str,
    /** sysctl -t type names: integer, unsigned integer, long, unsigned long, int64_t, uint64_t, string, boolean … */
    type: str,
    value: str,
    writable: { type: 'boolean' },
    description: str,
  },
} as const;

const hookSetting = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled', 'script'],
  properties: { enabled: { type: 'boolean' }, script: str },
} as const;

/**
 * A managed jail: `/etc/jail.conf.d/<name>.conf` (what `service jail start <name>` reads) whose header names its
 * CTID and dataset, plus per-phase hook scripts and a resource-limits script under
 * `/usr/local/etc/hostmgr/jails/<ctid>/` (agent/drivers/jail-layout.ts).
 */
const jailSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ctid', 'name', 'state', 'jid', 'hostname', 'path', 'dataset', 'hooks', 'cpuSet', 'memoryBytes', 'memoryUsedBytes'],
  properties: {
    /** the guest id (1–9999, unique across the cluster) */
    ctid: int,
    name: str,
    state: { type: 'string', enum: ['running', 'stopped'] },
    /** kernel jail id while running (`jls`), else null */
    jid: { type: ['integer', 'null'] },
    hostname: str,
    path: str,
    /** the ZFS dataset holding the jail's root, null when the jail is not on ZFS */
    dataset: { type: ['string', 'null'] },
    /** what the jail's conf wires and its hook scripts hold, phase by phase in the order jail(8) runs them */
    hooks: {
      type: 'object',
      additionalProperties: false,
      required: ['prestart', 'start', 'poststart', 'prestop', 'stop', 'poststop'],
      properties: { prestart: hookSetting, start: hookSetting, poststart: hookSetting, prestop: hookSetting, stop: hookSetting, poststop: hookSetting },
    },
    /** CPUs the post-start limits pin the jail to; [] = not pinned */
    cpuSet: { type: 'array', items: count },
    /** `rctl` memoryuse limit in bytes; 0 = none */
    memoryBytes: bytes,
    /** current memoryuse of a running jail (`rctl -u`), in bytes; null when stopped */
    memoryUsedBytes: { type: ['number', 'null'], minimum: 0 },
  },
} as const;

/** `virsh domstate` words, plus `orphaned` for a registration without a libvirt domain. */
export const VM_STATES = ['no state', 'running', 'idle', 'blocked', 'paused', 'in shutdown', 'shut off', 'crashed', 'pmsuspended', 'orphaned'] as const;

const cloudInitSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'metadata', 'networkConfig'],
  properties: {
    /** user-data; '' when cloud-init is off */
    data: str,
    /** meta-data */
    metadata: str,
    /** network-config; optional even when cloud-init is on */
    networkConfig: str,
  },
} as const;

const vncSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled', 'bind', 'port', 'resolution', 'wait', 'auth'],
  properties: {
    enabled: { type: 'boolean' },
    /** IP literal the VNC server listens on */
    bind: str,
    /** TCP port; null only while VNC is off and no port was ever chosen */
    port: { type: ['integer', 'null'] },
    /** `WxH` */
    resolution: str,
    /** bhyve waits for a VNC client before booting the guest */
    wait: { type: 'boolean' },
    /** a password is set (the password itself is never reported or stored outside the domain XML) */
    auth: { type: 'boolean' },
  },
} as const;

const vmOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['qemuGuestAgent', 'shutdownWaitTime', 'cloudInit', 'vnc'],
  properties: {
    qemuGuestAgent: { type: 'boolean' },
    /** seconds a graceful shutdown may take before the VM is destroyed */
    shutdownWaitTime: { type: 'number', minimum: 0 },
    cloudInit: cloudInitSchema,
    vnc: vncSchema,
  },
} as const;

/**
 * A VM: a libvirt bhyve domain named by its RID plus the agent's registration (a runtime directory with `vm.json`:
 * display name, shutdown wait time, cloud-init texts, MACs, datasets). A registration whose domain libvirt no
 * longer defines is an orphaned one (state `orphaned`), the only thing E10 purges.
 */
const vmSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['rid', 'domain', 'name', 'state', 'options', 'macs', 'datasets'],
  properties: {
    rid: int,
    /** libvirt domain name (the RID) */
    domain: str,
    /** display name: the domain's <title>, else the registration's name, else the domain name */
    name: str,
    state: { type: 'string', enum: VM_STATES },
    options: vmOptionsSchema,
    /** interface MAC addresses, lower case */
    macs: strings,
    /** ZFS datasets/zvols backing the VM */
    datasets: strings,
  },
} as const;

/**
 * A PCI device from `pciconf -lv`: the selector `<driver><unit>@pci<domain>:<bus>:<slot>:<function>` split into its
 * parts (`driver` is `none` for a device no driver claimed), the IDs of the first line, and the vendor/device/class
 * names of the `-v` lines when pciconf knows them.
 */
const pciDeviceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['selector', 'driver', 'unit', 'domain', 'bus', 'slot', 'function', 'class', 'vendorId', 'deviceId'],
  properties: {
    /** e.g. `ppt0@pci0:3:0:0` */
    selector: str,
    /** driver name without the unit: `ppt`, `re`, `none` */
    driver: str,
    unit: count,
    domain: count,
    bus: count,
    slot: count,
    function: count,
    /** `0x020000` */
    class: str,
    vendorId: str,
    deviceId: str,
    vendor: str,
    device: str,
    /** `network`, `mass storage` … */
    className: str,
    subclass: str,
  },
} as const;

/** A host user as `pw usershow -a` lists it (the fields the control plane uses); `gid` is its primary group. */
const userSchema = { type: 'object', additionalProperties: false, required: ['name', 'uid', 'gid'], properties: { name: str, uid: int, gid: int } } as const;

/** A host group as `pw groupshow -a` lists it; `members` are the supplementary ones, in the host's order. */
const groupSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'gid', 'members'],
  properties: { name: str, gid: int, members: strings },
} as const;

/**
 * A routing table (one per FIB), each entry as `netstat -rn -F <fib> --libxo json` prints it (destination
 * `default`, an address or `addr/len`, IPv6 ones possibly with a `%zone`; gateway an address, `link#N` or an
 * interface name).
 */
const routeTableSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['fib', 'routes'],
  properties: {
    fib: count,
    routes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['family', 'destination', 'gateway', 'flags', 'interface'],
        properties: { family: { type: 'string', enum: ['inet', 'inet6'] }, destination: str, gateway: str, flags: str, interface: str },
      },
    },
  },
} as const;

/**
 * A snapshot (`zfs list -t snapshot -o name,creation,used,userrefs,clones`, in zfs's order: per dataset oldest
 * first), with the tags of its user holds (`zfs holds`) and the datasets cloned from it.
 */
const snapshotSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'createdAt', 'usedBytes', 'holds', 'clones'],
  properties: {
    /** dataset@snapshot */
    name: str,
    /** Unix seconds */
    createdAt: int,
    usedBytes: int,
    holds: strings,
    clones: strings,
  },
} as const;

export const inventorySchema = {
  type: 'object',
  properties: {
    hostname: { type: 'string', maxLength: 255 },
    os: { type: 'string', maxLength: 255 },
    cpus: { type: 'integer', minimum: 0, maximum: MAX_HOST_CPUS },
    memoryBytes: { type: 'integer', minimum: 0 },
    /** when the host booted (`sysctl kern.boottime`), Unix seconds: the host's uptime, not the agent's */
    bootTime: { type: 'integer', minimum: 0 },
    pools: { type: 'array', items: poolSchema },
    /** filesystems and zvols (snapshots only when asked) */
    datasets: { type: 'array', items: datasetSchema },
    /** every snapshot of the host, with holds and clones (what the snapshot operations check before they queue) */
    snapshots: { type: 'array', items: snapshotSchema },
    tunables: { type: 'array', items: tunableSchema },
    /** free disks (not in any pool), for device replacement */
    disks: strings,
    jails: { type: 'array', items: jailSchema },
    /** libvirt domains named by RID and orphaned registrations */
    vms: { type: 'array', items: vmSchema },
    pciDevices: { type: 'array', items: pciDeviceSchema },
    /** host users with their primary group, and groups with their members (`pw usershow -a`, `pw groupshow -a`) */
    users: { type: 'array', items: userSchema },
    groups: { type: 'array', items: groupSchema },
    /** routing tables, one per FIB */
    routes: { type: 'array', items: routeTableSchema },
    /** what the host can do: release, __FreeBSD_version, RACCT, OpenZFS and libvirt versions */
    capabilities: capabilitiesSchema,
  },
  required: ['hostname', 'os', 'cpus', 'memoryBytes'],
  // further sections (the agent's `collectErrors`, an older or newer agent's) pass through unchecked
  additionalProperties: true,
} as const;

export type HostInventory = FromSchema<typeof inventorySchema>;

/**
 * The inventory as the single-node read shows it: the sections a node's page reads are typed (each was validated
 * by {@link inventorySchema} when the agent reported it, and may be missing from an older agent's report); the
 * others pass through as reported.
 */
export const inventoryViewSchema = {
  type: 'object',
  properties: {
    hostname: inventorySchema.properties.hostname,
    os: inventorySchema.properties.os,
    cpus: inventorySchema.properties.cpus,
    memoryBytes: inventorySchema.properties.memoryBytes,
    bootTime: inventorySchema.properties.bootTime,
    pools: inventorySchema.properties.pools,
    disks: inventorySchema.properties.disks,
    jails: inventorySchema.properties.jails,
    /** a VM's options are shown redacted (a VNC password as whether one is set), so only its head is typed here */
    vms: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rid', 'name', 'state'],
        properties: { rid: vmSchema.properties.rid, name: vmSchema.properties.name, state: vmSchema.properties.state },
        additionalProperties: true,
      },
    },
  },
  additionalProperties: true,
} as const;
export type InventoryView = FromSchema<typeof inventoryViewSchema>;
export type PoolInventory = FromSchema<typeof poolSchema>;
export type PoolVdev = FromSchema<typeof vdevSchema>;
export type DatasetInventory = FromSchema<typeof datasetSchema>;
export type SnapshotInventory = FromSchema<typeof snapshotSchema>;
export type TunableInventory = FromSchema<typeof tunableSchema>;
export type JailInventory = FromSchema<typeof jailSchema>;
export type VmInventory = FromSchema<typeof vmSchema>;
export type VmState = (typeof VM_STATES)[number];
export type VmOptions = FromSchema<typeof vmOptionsSchema>;
export type CloudInitOptions = FromSchema<typeof cloudInitSchema>;
export type VncOptions = FromSchema<typeof vncSchema>;
export type PciDeviceInventory = FromSchema<typeof pciDeviceSchema>;
export type HostUserInventory = FromSchema<typeof userSchema>;
export type HostGroupInventory = FromSchema<typeof groupSchema>;
export type RouteTable = FromSchema<typeof routeTableSchema>;
export type RouteEntry = RouteTable['routes'][number];
export type AddressFamily = RouteEntry['family'];
