import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * Every kind of host work, one entry each: what the task carries (`payload`), what its agent job returns
 * (`result`, checked against this schema when the agent finishes: an invalid result fails the task), which
 * payload fields are secrets (scrubbed when the task ends), whether it sets a resource's configuration (then
 * only the newest task of a resource is applied), which other hosts it reaches over SSH (`peers`), what it
 * works on (`resource`: the {@link resourceKey} it is queued under) and whether it holds that resource alone
 * (`exclusive`: at most one active such task per resource).
 *
 * Pure: this module imports nothing but types, so the agent wire and the agent can use it as it is.
 * Adding a kind: one entry here, one agent job (agent/jobs/registry.ts), one outcome
 * (shared/domain/task-outcomes.ts) — see docs/add-a-task-kind.md.
 */

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const strings = { type: 'array', items: str } as const;
const ints = { type: 'array', items: int } as const;

/** An object schema whose listed properties are all required (the usual shape of a payload or result). */
function exact<const P extends Record<string, object>>(properties: P) {
  return { type: 'object', properties, required: Object.keys(properties) as Array<keyof P & string>, additionalProperties: false } as const;
}

const hookPhase = exact({ enabled: bool, script: str });
/** A jail's six lifecycle hooks as a task carries them; ./jail-hooks.ts declares them, shared/domain/jails/hook-problems.ts checks them. */
const jailHookPhases = exact({ prestart: hookPhase, start: hookPhase, poststart: hookPhase, prestop: hookPhase, stop: hookPhase, poststop: hookPhase });

/** A node's iSCSI configuration as the store holds it (shared/domain/iscsi/config.ts builds it; the agent renders ctl.conf). */
const iscsiConfig = exact({
  portalGroups: { type: 'array', items: exact({ name: str, discoveryAuthGroup: str, listen: strings }) },
  targets: {
    type: 'array',
    items: exact({ name: str, alias: str, authGroup: str, portalGroup: str, luns: { type: 'array', items: exact({ number: int, zvol: str }) } }),
  },
});

/**
 * A backup job's target as a task reaches it over SSH (where a backup run sends, where a restore reads): a member
 * node, or an SSH endpoint outside the cluster — where, as whom, and the `SHA256:…` fingerprint of the host key
 * the job pinned.
 */
const nodePeer = exact({ kind: { const: 'node' }, nodeId: str, dataset: str });
const sshPeer = exact({ kind: { const: 'ssh' }, user: str, host: str, port: int, dataset: str, hostKeys: strings });
const backupPeer = { oneOf: [nodePeer, sshPeer] } as const;
/** Where a backup run sends, with the E12 label (e.g. `node-b:tank/backups/web`). */
const backupRunTarget = {
  oneOf: [
    { ...nodePeer, properties: { ...nodePeer.properties, label: str }, required: [...nodePeer.required, 'label'] },
    { ...sshPeer, properties: { ...sshPeer.properties, label: str }, required: [...sshPeer.required, 'label'] },
  ],
} as const;

const guestRef = exact({ type: { enum: ['jail', 'vm'] }, id: int, name: str });
const backupRestorePayload = {
  type: 'object',
  properties: {
    jobId: int,
    /** the backup event (mode `restore`) the task moves */
    eventId: int,
    /** the dataset restored on the runner */
    dataset: str,
    /** the snapshot (after `@`); null: the newest of the job's snapshots, resolved on the host */
    snapshot: { type: ['string', 'null'] },
    source: backupPeer,
    /** the guest on the dataset: stopped for the swap, started again if it ran */
    guest: { oneOf: [guestRef, { type: 'null' }] },
    /** a task secret: leaves the stored payload when the task ends, never logged */
    encryptionKey: str,
    encryptionKeyFormat: { enum: ['passphrase', 'hex', 'raw'] },
  },
  required: ['jobId', 'eventId', 'dataset', 'snapshot', 'source', 'guest'],
  additionalProperties: false,
} as const;

/** The target as the migration was planned: its address and SSH host keys then, not as they may be when it runs. */
const migratePayload = exact({ ctid: int, name: str, dataset: str, target: exact({ nodeId: str, address: str, hostKeys: strings }) });
const backupRunPayload = exact({ jobId: int, source: str, retention: int, target: backupRunTarget });

/** What a certificate task reports: the certificate the host holds now. */
const installedCertificate = exact({ fingerprint: str, notBefore: str, notAfter: str, path: str });
const vmRid = { rid: int, domain: str } as const;

/** The resources tasks work on; tasks on one resource run one at a time. `jail:101`, `vm:7`, `pool:<guid>`, `tunable:<name>`. */
export const resourceKey = {
  pool: (guid: string) => `pool:${guid}`,
  jail: (ctid: number) => `jail:${ctid}`,
  vm: (rid: number) => `vm:${rid}`,
  tunable: (name: string) => `tunable:${name}`,
  /** a managed host group, by its store id */
  group: (id: number) => `group:${id}`,
  /** host-wide work of a node (diagnostics) */
  host: (nodeId: string) => `host:${nodeId}`,
  /** a node's whole iSCSI configuration (`/etc/ctl.conf`) */
  iscsi: (nodeId: string) => `iscsi:${nodeId}`,
  /** a backup job: its scheduled runs and its restores, one at a time */
  backupJob: (id: number) => `backup-job:${id}`,
  /** a TLS certificate, by its store id: one issuance at a time */
  certificate: (id: number) => `certificate:${id}`,
  /** a file of the host (`file:/boot/loader.conf`) */
  file: (path: string) => `file:${path}`,
  /** a jail or VM (the same keys as `jail` and `vm`): its snapshots queue behind its other tasks */
  guest: (type: 'jail' | 'vm', id: number) => `${type}:${id}`,
};
export type ResourceType = keyof typeof resourceKey;

/**
 * Another host a task reaches: a member node (as it registered, read when the task starts), a member node as the
 * payload pinned it when the task was planned (`planned`), or an SSH endpoint as the payload pins it.
 */
export type PeerRef =
  | { kind: 'node'; nodeId: string }
  | { kind: 'planned'; nodeId: string; address: string; hostKeys: string[] }
  | { kind: 'ssh'; user: string; host: string; port: number; hostKeys: string[] };

interface KindDef<P, R> {
  payload: P;
  result: R;
  /** the other hosts the task reaches over SSH, from its payload (see {@link peersFrom}) */
  peers?: (payload: unknown) => PeerRef[];
  /** payload fields that carry secrets: they leave the stored payload when the task ends */
  secretFields: readonly string[];
  /** sets a resource's configuration to a value: only the newest task of a resource counts */
  configuration: boolean;
  resource: ResourceType;
  exclusive: boolean;
  /**
   * Its undo needs only the payload and the host, so a cancel requested while it ran survives an agent restart:
   * the restarted agent undoes it (agent/jobs/undo-after-restart.ts) and reports it `cancelled`, instead of the
   * task ending `interrupted` while the host work (a resilver) goes on to completion.
   */
  undoAfterRestart?: true;
}

const kind = <const P extends object, const R extends object>(d: KindDef<P, R>): KindDef<P, R> => d;

/** The TypeScript type of a schema of this table. */
type Of<S> = S extends JSONSchema ? FromSchema<S> : never;

/** A kind's `peers`, typed by its payload schema. */
const peersFrom = <const P extends object>(_payload: P, peers: (payload: Of<P>) => PeerRef[]) => peers as (payload: unknown) => PeerRef[];

const plain = { secretFields: [], configuration: false, exclusive: false } as const;
const configuration = { secretFields: [], configuration: true, exclusive: false } as const;

export const taskKinds = {
  /** E3 (and re-application at agent start): hook scripts + `exec.<phase> +=` lines in the jail's conf */
  'jail.apply-hooks': kind({
    ...configuration,
    resource: 'jail',
    payload: exact({ ctid: int, name: str, hooks: jailHookPhases }),
    result: exact({ ctid: int, wired: { type: 'array', items: { enum: ['prestart', 'start', 'poststart', 'prestop', 'stop', 'poststop'] } } }),
  }),
  /**
   * E4 (and re-application at agent start): the post-start limits script (`cpuset -l`, `rctl -a`), and, when
   * `applyNow`, the same limits on the running jail at once
   */
  'jail.apply-limits': kind({
    ...configuration,
    resource: 'jail',
    payload: exact({ ctid: int, name: str, cpuSet: ints, memoryBytes: int, applyNow: bool }),
    result: exact({ ctid: int, cpuSet: ints, appliedNow: bool }),
  }),
  /** E20: replicate over SSH, stop, final incremental, start on the target (agent/jobs/jail-migrate.ts) */
  'jail.migrate': kind({
    ...plain,
    exclusive: true,
    resource: 'jail',
    payload: migratePayload,
    /** the jail runs (or not) on the target; `recovered`: reported by the agent's recovery after a crash */
    result: {
      type: 'object',
      properties: { ctid: int, targetNodeId: str, state: { enum: ['running', 'stopped'] }, warnings: strings, recovered: bool },
      required: ['ctid', 'targetNodeId', 'state', 'warnings'],
      additionalProperties: false,
    },
    peers: peersFrom(migratePayload, (p) => [{ kind: 'planned', ...p.target }]),
  }),
  /**
   * Power: start, stop or restart a jail as its conf defines it (`jail -f <conf> -c/-r`: its exec.* hooks and
   * post-start limits run). `changed`: false when the host already had the jail in the wanted state.
   */
  'jail.power': kind({
    ...plain,
    exclusive: true,
    resource: 'jail',
    payload: exact({ ctid: int, name: str, action: { enum: ['start', 'stop', 'restart'] } }),
    result: exact({ ctid: int, action: { enum: ['start', 'stop', 'restart'] }, state: { enum: ['running', 'stopped'] }, changed: bool }),
  }),
  /** E7 */
  'pool.replace-device': kind({
    ...plain,
    exclusive: true,
    // the resilver runs in the kernel whether or not the agent does; `zpool detach <pool> <new>` stops it
    undoAfterRestart: true,
    resource: 'pool',
    payload: exact({ pool: str, guid: str, old: str, new: str }),
    result: exact({ pool: str, old: str, new: str, poolState: str, scan: str }),
  }),
  /** E11, and re-application at agent start */
  'tunable.apply': kind({
    ...configuration,
    resource: 'tunable',
    payload: exact({ name: str, value: str }),
    result: exact({ name: str, old: str, new: str }),
  }),
  /**
   * A diagnostic: reads sysctl values on the host (`sysctl -n <oid>` each) and holds for `holdMs`, reporting
   * progress. Proves the path control plane → queue → agent → host → report end to end (the fault tests use it).
   */
  'host.probe': kind({
    ...plain,
    resource: 'host',
    payload: { type: 'object', properties: { sysctls: strings, holdMs: int }, required: ['sysctls'], additionalProperties: false },
    result: exact({ values: { type: 'object', additionalProperties: str } }),
  }),
  /** E5: the VM's QEMU guest agent channel (shut-off VM) */
  'vm.guest-agent': kind({
    ...configuration,
    resource: 'vm',
    payload: exact({ ...vmRid, enabled: bool }),
    result: exact({ rid: int, qemuGuestAgent: bool }),
  }),
  /** E6: how long a graceful shutdown may take (any state; kept in the VM's registration) */
  'vm.shutdown-wait-time': kind({
    ...configuration,
    resource: 'vm',
    payload: exact({ ...vmRid, waitTime: int }),
    result: exact({ rid: int, shutdownWaitTime: int }),
  }),
  /** E17: cloud-init seed ISO (all three '' = off) (shut-off VM); user data and meta-data can carry passwords and keys */
  'vm.cloud-init': kind({
    ...configuration,
    secretFields: ['data', 'metadata'],
    resource: 'vm',
    payload: exact({ ...vmRid, data: str, metadata: str, networkConfig: str }),
    result: exact({ rid: int, cloudInit: bool, seedIso: { type: ['string', 'null'] }, attached: bool }),
  }),
  /** E19: VNC graphics + GOP video (shut-off VM); `password` absent keeps the current one, '' clears it */
  'vm.vnc': kind({
    ...configuration,
    secretFields: ['password'],
    resource: 'vm',
    payload: {
      type: 'object',
      properties: { ...vmRid, enabled: bool, bind: str, port: { type: ['integer', 'null'] }, resolution: str, wait: bool, password: str },
      required: ['rid', 'domain', 'enabled', 'bind', 'port', 'resolution', 'wait'],
      additionalProperties: false,
    },
    result: exact({
      rid: int,
      vnc: exact({ enabled: bool, bind: str, port: { type: ['integer', 'null'] }, resolution: str, wait: bool, auth: bool }),
    }),
  }),
  /**
   * Power: start, stop (ACPI `virsh shutdown`, then `virsh destroy` once `waitTime` seconds passed), restart
   * (a stop, then a start) or poweroff (`virsh destroy` at once). `stoppedBy`: how a stop ended — `acpi` (the
   * guest powered off), `forced` (destroyed after the wait), null when nothing was stopped.
   */
  'vm.power': kind({
    ...plain,
    exclusive: true,
    resource: 'vm',
    payload: exact({ ...vmRid, action: { enum: ['start', 'stop', 'restart', 'poweroff'] }, waitTime: int }),
    result: exact({
      rid: int,
      action: { enum: ['start', 'stop', 'restart', 'poweroff'] },
      state: str,
      changed: bool,
      stoppedBy: { enum: ['acpi', 'forced', null] },
    }),
  }),
  /** E10: removes an orphaned VM's registration and runtime files (never datasets), re-checking libvirt first */
  'vm.purge-registration': kind({
    ...plain,
    resource: 'vm',
    payload: exact(vmRid),
    result: exact({ rid: int, removed: strings }),
  }),
  /** E9: the device (`bus/slot/function`) joins pptdevs[2,3] in /boot/loader.conf, `vmm_load` set */
  'ppt.import': kind({
    ...plain,
    resource: 'file',
    payload: exact({ deviceID: str }),
    result: exact({ deviceID: str, pptdevs: strings }),
  }),
  /** E1: the group's supplementary members become `members` (`pw groupmod <g> -m/-d <user>`; applied steps undone on a failure) */
  'group.set-members': kind({
    ...plain,
    resource: 'group',
    payload: exact({ group: str, members: strings }),
    result: exact({ group: str, members: strings, added: strings, removed: strings }),
  }),
  /** E2: `pw groupdel <g>` */
  'group.delete': kind({
    ...plain,
    resource: 'group',
    payload: exact({ group: str }),
    result: exact({ group: str, deleted: bool }),
  }),
  /** E13: the node's whole iSCSI configuration, rendered as `/etc/ctl.conf`, checked, installed, loaded into ctld and confirmed with ctladm */
  'iscsi.apply-config': kind({
    ...plain,
    resource: 'iscsi',
    payload: exact({ config: iscsiConfig }),
    result: exact({ action: { enum: ['onereload', 'onestart'] }, check: { enum: ['ctld -t', 'hostmgr'] }, luns: int }),
  }),
  /**
   * A backup job's run (agent/jobs/backup-run.ts): recursive snapshot of `source`, `zfs send -R [-I @common]`
   * into `zfs recv -u` of `target.dataset` on the target (a member node, or the job's SSH endpoint: both are
   * the task's peers, pinned), then retention on both sides. Its backup event is the one with its task id.
   */
  'backup.run': kind({
    ...plain,
    exclusive: true,
    resource: 'backupJob',
    payload: backupRunPayload,
    result: exact({
      mode: { enum: ['full', 'incremental'] },
      snapshot: str,
      from: { type: ['string', 'null'] },
      bytes: int,
      estimate: int,
      pruned: exact({ source: strings, target: strings }),
    }),
    peers: peersFrom(backupRunPayload, (p) => [peerOf(p.target)]),
  }),
  /** E15: receive a job snapshot from the job's target into `<dataset>.restoring`, verify, swap in (agent/jobs/backup-restore.ts) */
  'backup.restore': kind({
    ...plain,
    secretFields: ['encryptionKey'],
    exclusive: true,
    resource: 'backupJob',
    payload: backupRestorePayload,
    result: exact({
      jobId: int,
      dataset: str,
      snapshot: str,
      from: { enum: ['local', 'target'] },
      guid: str,
      guest: {
        oneOf: [
          { ...guestRef, properties: { ...guestRef.properties, state: { enum: ['running', 'stopped'] } }, required: [...guestRef.required, 'state'] },
          { type: 'null' },
        ],
      },
      warnings: strings,
    }),
    peers: peersFrom(backupRestorePayload, (p) => [peerOf(p.source)]),
  }),
  /**
   * Managed TLS certificates (E22): the agent runs the ACME flow against `directoryUrl` (HTTP-01
   * answered by its own responder), with the account key and a new ECDSA P-256 key kept on the host, and
   * installs `<name>.crt`/`<name>.key`; its result is the certificate's fingerprint and validity
   */
  'certificate.issue': kind({
    ...plain,
    exclusive: true,
    resource: 'certificate',
    payload: exact({ certificateId: int, name: str, domain: str, directoryUrl: str, operation: { enum: ['initial', 'renewal'] } }),
    result: installedCertificate,
  }),
  /**
   * An imported certificate: the agent installs `certificatePem` (leaf + chain) and `privateKeyPem` (a task
   * secret: it leaves the stored payload when the task ends) as `<name>.crt`/`<name>.key` and reports the
   * installed leaf's fingerprint, which must be `fingerprint` (the store's)
   */
  'certificate.install': kind({
    ...plain,
    secretFields: ['privateKeyPem'],
    exclusive: true,
    resource: 'certificate',
    payload: {
      type: 'object',
      properties: { certificateId: int, name: str, certificatePem: str, privateKeyPem: str, fingerprint: str },
      required: ['certificateId', 'name', 'certificatePem', 'fingerprint'],
      additionalProperties: false,
    },
    result: installedCertificate,
  }),
  /** Snapshots of a guest's datasets, taken together (`zfs snapshot ds1@name ds2@name` is atomic) */
  'snapshot.create': kind({
    ...plain,
    resource: 'guest',
    payload: exact({ datasets: strings, name: str }),
    result: exact({ snapshots: strings }),
  }),
  /**
   * `zfs rollback [-r] <ds@snap>`; `destroyNewer` (-r) destroys the newer snapshots — only those the request was
   * told (`destroys`): a newer one taken since fails the task instead. The result names what was destroyed.
   */
  'snapshot.rollback': kind({
    ...plain,
    resource: 'guest',
    payload: exact({ snapshot: str, destroyNewer: bool, destroys: strings }),
    result: exact({ snapshot: str, destroyed: strings }),
  }),
  /** `zfs destroy <ds@snap>`: refused by zfs while a hold or a clone depends on it */
  'snapshot.destroy': kind({
    ...plain,
    resource: 'guest',
    payload: exact({ snapshot: str }),
    result: exact({ snapshot: str }),
  }),
  /** A self-signed certificate: the agent makes an ECDSA P-256 key and a certificate for `domain` on the host and installs both */
  'certificate.self-sign': kind({
    ...plain,
    exclusive: true,
    resource: 'certificate',
    payload: exact({ certificateId: int, name: str, domain: str, validityDays: int }),
    result: installedCertificate,
  }),
};

function peerOf(p: Of<typeof backupPeer>): PeerRef {
  return p.kind === 'node' ? { kind: 'node', nodeId: p.nodeId } : { kind: 'ssh', user: p.user, host: p.host, port: p.port, hostKeys: p.hostKeys };
}

type Kinds = typeof taskKinds;
export type TaskKind = keyof Kinds;
/** What a task of kind K carries to its agent. */
export type TaskPayload<K extends TaskKind> = Of<Kinds[K]['payload']>;
/** What the agent job of kind K returns (stored as the task's result once checked against the kind's schema). */
export type TaskResult<K extends TaskKind> = Of<Kinds[K]['result']>;
export type TaskPayloads = { [K in TaskKind]: TaskPayload<K> };
export type TaskResults = { [K in TaskKind]: TaskResult<K> };

export const TASK_KINDS = Object.keys(taskKinds) as TaskKind[];

/** Whether a cancel requested while a task of this kind ran is carried out by its restarted agent. */
export const undoesAfterRestart = (kind: string): boolean => isTaskKind(kind) && (taskKinds[kind] as { undoAfterRestart?: true }).undoAfterRestart === true;

export const isTaskKind = (kind: string): kind is TaskKind => Object.hasOwn(taskKinds, kind);

export type BackupPeer = Of<typeof backupPeer>;
export type BackupRunTarget = TaskPayload<'backup.run'>['target'];
export type RestoreSource = BackupPeer;
export type BackupRestorePayload = TaskPayload<'backup.restore'>;
export type IscsiConfig = Of<typeof iscsiConfig>;
export type JailHookPhases = Of<typeof jailHookPhases>;

/** The peer id (JobContext.peer) a task reaches a backup peer by: the node's id, or `ssh:<user>@<host>:<port>`. */
export const backupPeerId = (p: { kind: 'node'; nodeId: string } | { kind: 'ssh'; user: string; host: string; port: number }) =>
  p.kind === 'node' ? p.nodeId : `ssh:${p.user}@${p.host}:${p.port}`;
