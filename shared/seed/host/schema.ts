import type { FromSchema } from 'json-schema-to-ts';
import { simJailSchema } from './jail.ts';
import { simVmSchema } from './vm.ts';
import { simPciDeviceSchema } from './pci.ts';
import { simRoutingSchema } from './routes.ts';

/**
 * One simulated FreeBSD host: the seed file's `$defs.host` and, after the simulator fills in defaults
 * (GUIDs, boot time), the shape of its JSON state file. Sections other capabilities need (jails, VMs …)
 * are added as properties here by those capabilities; see README.md.
 *
 * Units: every `*Bytes` is bytes, every `*Ns` nanoseconds, rates are per second.
 */
const guid = { type: 'string', pattern: '^[1-9][0-9]{0,19}$', description: 'ZFS GUID, decimal uint64' } as const;
const bytes = { type: 'integer', minimum: 0 } as const;

const vdevState = { enum: ['ONLINE', 'DEGRADED', 'FAULTED', 'OFFLINE', 'UNAVAIL', 'REMOVED'] } as const;

/** Properties every vdev node has; leaves (disk, file) carry a name, interior vdevs (mirror, raidzN, replacing) children. */
const vdevProps = {
  type: { enum: ['disk', 'file', 'mirror', 'raidz1', 'raidz2', 'raidz3', 'replacing'] },
  /** leaves: device name as zpool prints it (`ada1`, `ada0p3`); unused for interior vdevs (named `mirror-0` …) */
  name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_./:-]+$' },
  guid,
  /** leaves only; interior vdev states are derived from their children */
  state: vdevState,
  /** leaves: size when the name is not a whole disk listed in `disks` (a partition such as ada0p3) */
  sizeBytes: bytes,
  errors: {
    type: 'object',
    additionalProperties: false,
    properties: { read: { type: 'integer', minimum: 0 }, write: { type: 'integer', minimum: 0 }, cksum: { type: 'integer', minimum: 0 } },
  },
  /** runtime: the new side of a replacing vdev while the resilver runs */
  resilvering: { type: 'boolean' },
} as const;

const leafVdev = { type: 'object', additionalProperties: false, required: ['type'], properties: vdevProps } as const;
const midVdev = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: { ...vdevProps, children: { type: 'array', items: leafVdev } },
} as const;
const topVdev = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: { ...vdevProps, children: { type: 'array', items: midVdev } },
} as const;

/** A scan (scrub/resilver) as zpool status reports it; a running one advances with simulated time. */
const scanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['function', 'state', 'startMs'],
  properties: {
    function: { enum: ['scrub', 'resilver'] },
    state: { enum: ['scanning', 'finished', 'canceled'] },
    startMs: { type: 'integer', minimum: 0 },
    /** planned end while scanning; actual end when finished */
    endMs: { type: 'integer', minimum: 0 },
    /** bytes the scan has to issue (the data on the affected top-level vdevs) */
    totalBytes: bytes,
    /** bytes repaired (scrub) or resilvered */
    processedBytes: bytes,
    errors: { type: 'integer', minimum: 0 },
  },
} as const;

/** Workload of a pool, averaged; the simulator adds a slow deterministic wobble over time. */
const ioSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    readOps: { type: 'number', minimum: 0 },
    writeOps: { type: 'number', minimum: 0 },
    readBytes: { type: 'number', minimum: 0 },
    writeBytes: { type: 'number', minimum: 0 },
    /** average total wait per I/O (queue + disk) */
    readWaitNs: { type: 'number', minimum: 0 },
    writeWaitNs: { type: 'number', minimum: 0 },
    /** average disk wait per I/O */
    readDiskWaitNs: { type: 'number', minimum: 0 },
    writeDiskWaitNs: { type: 'number', minimum: 0 },
  },
} as const;

const poolSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'vdevs', 'allocatedBytes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z][A-Za-z0-9_.:-]*$' },
    guid,
    /** data vdevs; a pool's size is derived from them (mirror: smallest child, raidzN: smallest child × children) */
    vdevs: { type: 'array', minItems: 1, items: topVdev },
    logs: { type: 'array', items: topVdev },
    cache: { type: 'array', items: leafVdev },
    allocatedBytes: bytes,
    /** percent */
    fragmentation: { type: 'integer', minimum: 0, maximum: 100 },
    dedupRatio: { type: 'number', minimum: 1 },
    scan: scanSchema,
    io: ioSchema,
    /**
     * The I/O of the pool's creation (label and uberblock reads and writes, its first txgs): part of `zpool iostat`'s
     * since-import report, never of a later interval's. Sync reads only; writes through the sync and async queues.
     */
    importIo: ioSchema,
    /** zpool properties `zpool get` answers besides the computed ones (e.g. bootfs, autoreplace) */
    properties: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

/** A file's content and mode (octal, as chmod takes it). */
const simFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['content', 'mode'],
  properties: {
    content: { type: 'string' },
    mode: { type: 'string', pattern: '^[0-7]{3,4}$' },
    /** a sparse file's length when it is longer than its content (truncate -s, e.g. a file vdev) */
    sizeBytes: { type: 'integer', minimum: 0 },
  },
} as const;

const datasetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'usedBytes'],
  properties: {
    /** pool/path, or pool/path@snap for snapshots */
    name: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z0-9_.:/@%-]+$' },
    type: { enum: ['filesystem', 'volume', 'snapshot'] },
    guid,
    usedBytes: bytes,
    /** REFER; defaults to usedBytes */
    referencedBytes: bytes,
    /** used by snapshots of this dataset */
    usedBySnapshotsBytes: bytes,
    /** zvols */
    volsizeBytes: bytes,
    /** filesystems; default: inherited from the nearest ancestor that sets one, else /<name> (`none`, `legacy` allowed) */
    mountpoint: { type: 'string' },
    /** filesystems: false while not mounted (received with `zfs recv -u`, or unmounted); absent means mounted */
    mounted: { type: 'boolean' },
    /** the files of a filesystem while it is not mounted, by path relative to its mountpoint */
    unmountedFiles: { type: 'object', additionalProperties: simFileSchema },
    /** the files of the directory a filesystem is mounted over (an overlay mount), hidden while it is mounted */
    overlaidFiles: { type: 'object', additionalProperties: simFileSchema },
    /** Unix seconds */
    creation: { type: 'integer', minimum: 0 },
    /** snapshots: user holds (`zfs hold <tag>`), tag → Unix seconds; `userrefs` counts them */
    holds: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
    /** other ZFS properties by name, as `zfs get` prints them (compression, origin …) */
    properties: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

/**
 * A sysctl OID. `writable: false` + `tunable: true` is a read-only loader tunable (CTLFLAG_RDTUN, set in
 * /boot/loader.conf); `writable: false` alone is a plain read-only OID. `min`/`max` are limits the kernel's
 * handler enforces beyond the type (sysctl then fails with "Invalid argument").
 */
const sysctlSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type', 'value', 'writable'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9_%-]+(\\.[A-Za-z0-9_%-]+)*$' },
    /** as `sysctl -t` prints it */
    type: {
      enum: [
        'integer',
        'unsigned integer',
        'long integer',
        'unsigned long',
        'int8_t',
        'uint8_t',
        'int16_t',
        'uint16_t',
        'int32_t',
        'uint32_t',
        'int64_t',
        'uint64_t',
        'string',
        'opaque',
      ],
    },
    value: { type: 'string' },
    writable: { type: 'boolean' },
    tunable: { type: 'boolean' },
    description: { type: 'string' },
    min: { type: 'number' },
    max: { type: 'number' },
  },
} as const;

const arcSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['sizeBytes', 'targetBytes', 'minBytes', 'maxBytes'],
  properties: {
    sizeBytes: bytes,
    /** `c`, the ARC's target size */
    targetBytes: bytes,
    minBytes: bytes,
    maxBytes: bytes,
    /** fraction of accesses that hit, 0–1 (the simulator wobbles around it) */
    hitRatio: { type: 'number', minimum: 0, maximum: 1 },
    /** ARC accesses per second */
    accessesPerSecond: { type: 'number', minimum: 0 },
    l2SizeBytes: bytes,
    l2HitRatio: { type: 'number', minimum: 0, maximum: 1 },
  },
} as const;

/** A host user (master.passwd), as `pw usershow` prints it. */
const simUserSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'uid', 'gid'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*\\$?$' },
    uid: { type: 'integer', minimum: 0, maximum: 4294967294 },
    /** the primary group's gid */
    gid: { type: 'integer', minimum: 0, maximum: 4294967294 },
    class: { type: 'string' },
    gecos: { type: 'string' },
    home: { type: 'string' },
    shell: { type: 'string' },
  },
} as const;

/** A host group (/etc/group), as `pw groupshow` prints it; `members` are the supplementary members. */
const simGroupSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'gid', 'members'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' },
    gid: { type: 'integer', minimum: 0, maximum: 4294967294 },
    members: { type: 'array', items: { type: 'string', minLength: 1 } },
  },
} as const;

export const hostSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['hostname', 'cpus', 'memoryBytes', 'disks', 'pools', 'datasets', 'sysctls'],
  properties: {
    hostname: { type: 'string', minLength: 1, maxLength: 255 },
    /** the release, OpenZFS and libvirt the host runs (simulator/profiles.ts); default HM_SIM_PROFILE, else freebsd-14.3 */
    profile: { enum: ['freebsd-14.3', 'freebsd-15.0'] },
    /**
     * the libvirt package installed when it is not the release's own (simulator/profiles.ts): libvirt is a package
     * (devel/libvirt), so a 14.3 host that ran `pkg upgrade libvirt` from the latest branch runs a newer one
     */
    libvirtVersion: { type: 'string', pattern: '^[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}$' },
    /** programs this host does not have (a package not installed, e.g. `virsh` without libvirt): not found on any PATH */
    absentPrograms: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 } },
    /** sockets listening on the host (sockstat -l), e.g. an httpd on port 80 */
    listeningSockets: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['command', 'pid', 'port', 'proto'],
        properties: {
          command: { type: 'string', minLength: 1, maxLength: 64 },
          user: { type: 'string', minLength: 1, maxLength: 32 },
          pid: { type: 'integer', minimum: 1 },
          fd: { type: 'integer', minimum: 0 },
          port: { type: 'integer', minimum: 1, maximum: 65535 },
          proto: { enum: ['tcp4', 'tcp6', 'udp4', 'udp6'] },
        },
      },
    },
    /** the kernel environment the loader handed over at the last boot (/boot/loader.conf …); filled at first start */
    kenv: { type: 'object', additionalProperties: { type: 'string' } },
    cpus: { type: 'integer', minimum: 1, maximum: 1024 },
    memoryBytes: { type: 'integer', minimum: 1 },
    /** Unix ms; filled in at first start (three days before) so counters have a history */
    bootTimeMs: { type: 'integer', minimum: 0 },
    /** every disk device (`sysctl kern.disks`), pool members included; free disks are those in no pool */
    disks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'sizeBytes'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 24, pattern: '^[A-Za-z][A-Za-z0-9_]*$' },
          sizeBytes: bytes,
          description: { type: 'string' },
          /** the disk's GEOM label `diskid/DISK-<ident>` (kern.geom.label.disk_ident.enable) */
          ident: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9_-]+$' },
          /** GPT partitions (`<disk>p<index>`), each with its GEOM providers: `gpt/<label>`, `<partition>.eli` (GELI) */
          partitions: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['index', 'type', 'sizeBytes'],
              properties: {
                index: { type: 'integer', minimum: 1, maximum: 128 },
                type: { enum: ['efi', 'freebsd-boot', 'freebsd-swap', 'freebsd-zfs', 'freebsd-ufs'] },
                sizeBytes: bytes,
                label: { type: 'string', minLength: 1, maxLength: 36, pattern: '^[A-Za-z0-9_.-]+$' },
                eli: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
    pools: { type: 'array', items: poolSchema },
    datasets: { type: 'array', items: datasetSchema },
    /** sysctl OIDs besides the derived ones (kern.hostname, hw.ncpu, hw.physmem, kern.disks, kstat.zfs.misc.arcstats.*) */
    sysctls: { type: 'array', items: sysctlSchema },
    /** ZFS's ARC; without it the host has no ZFS loaded (no kstat.zfs.misc.arcstats) */
    arc: arcSchema,
    /** jails (jail.ts): seeded ones are laid out as conf + hook files at first start */
    jails: { type: 'array', items: simJailSchema },
    /** VMs (vm.ts): seeded ones become libvirt definitions + registration files at first start */
    vms: { type: 'array', items: simVmSchema },
    /** PCI devices (pci.ts) as `pciconf -lv` lists them; /boot/loader.conf, if any, goes in `files` */
    pciDevices: { type: 'array', items: simPciDeviceSchema },
    /** users and groups (commands/pw.ts), in the order of master.passwd and /etc/group */
    users: { type: 'array', items: simUserSchema },
    groups: { type: 'array', items: simGroupSchema },
    /** routing tables per FIB (routes.ts), what `netstat -rn` answers */
    routing: simRoutingSchema,
    /** files of the host by absolute path (file-tree.ts): confs, hook scripts, registrations */
    files: { type: 'object', additionalProperties: simFileSchema },
    /** directories created explicitly (mkdir); a directory also exists when anything lies below it */
    dirs: { type: 'array', items: { type: 'string', pattern: '^/' } },
    /** symbolic links by absolute path → target as `ln -s` stored it (file-tree.ts) */
    links: { type: 'object', additionalProperties: { type: 'string' } },
    /** rctl(8) rules in the kernel, `subject:id:resource:action=amount`: per jail *name*, so they outlive the jail (commands/rctl.ts) */
    rctlRules: { type: 'array', items: { type: 'string' } },
    /**
     * ctld(8), the iSCSI target daemon (commands/ctld.ts): running or not, the ctl.conf text it last loaded, and
     * what it made the kernel's CTL serve (commands/ctl-kernel.ts; `ctladm` reads it). Without `kernel`, a
     * seeded running ctld serves what `loaded` describes.
     */
    ctld: {
      type: 'object',
      additionalProperties: false,
      required: ['running'],
      properties: {
        running: { type: 'boolean' },
        pid: { type: 'integer', minimum: 1 },
        loaded: { type: 'string' },
        kernel: {
          type: 'object',
          additionalProperties: false,
          required: ['luns', 'ports'],
          properties: {
            /** CTL LUNs: id, ctld's name (`<target>,lun,<n>`), backing path, size in 512-byte blocks */
            luns: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['id', 'name', 'path', 'blocks'],
                properties: {
                  id: { type: 'integer', minimum: 0 },
                  name: { type: 'string' },
                  path: { type: 'string' },
                  blocks: { type: 'integer', minimum: 0 },
                },
              },
            },
            /** iSCSI ports: one per target and portal group, with the target's LUN map (LUN number → CTL LUN id) */
            ports: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['target', 'tag', 'targetId', 'luns'],
                properties: {
                  target: { type: 'string' },
                  tag: { type: 'integer', minimum: 0 },
                  targetId: { type: 'integer', minimum: 0 },
                  luns: { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 2, maxItems: 2 } },
                },
              },
            },
          },
        },
      },
    },
    simulation: {
      type: 'object',
      additionalProperties: false,
      properties: {
        /** how long a resilver runs in simulated time (default 6; HM_SIM_RESILVER_MS overrides) */
        resilverSeconds: { type: 'number', minimum: 0 },
      },
    },
  },
} as const;

export type SimHost = FromSchema<typeof hostSchema>;
export type SimPool = FromSchema<typeof poolSchema>;
export type SimVdev = FromSchema<typeof topVdev>;
export type SimLeaf = FromSchema<typeof leafVdev>;
export type SimDataset = FromSchema<typeof datasetSchema>;
export type SimSysctl = FromSchema<typeof sysctlSchema>;
export type SimScan = FromSchema<typeof scanSchema>;
export type SimIo = FromSchema<typeof ioSchema>;
export type SimPciDevice = FromSchema<typeof simPciDeviceSchema>;
export type SimUser = FromSchema<typeof simUserSchema>;
export type SimGroup = FromSchema<typeof simGroupSchema>;
