import { TASK_STATUSES, type TaskStatus } from '#shared/agent-api/task-status';

/**
 * The job protocol shared by functions (producers) and the agent (consumer).
 *
 * Queue: one SQS FIFO queue per node; MessageGroupId = the resource's group (serial per resource),
 * MessageDeduplicationId = task id; DLQ after 5 receives. Body = QueueMessage as JSON.
 */
export { TASK_STATUSES, type TaskStatus };
export const ACTIVE_STATUSES: TaskStatus[] = ['queued', 'running'];

/**
 * Every kind of host work and its payload. Each capability adds its kinds here; the agent's job registry
 * (agent/jobs/registry.ts) must have a handler for each.
 */
export interface TaskPayloads {
  /** E3 (and re-application at agent start): hook scripts + `exec.<phase> +=` lines in the jail's conf */
  'jail.apply-hooks': { ctid: number; name: string; hooks: JailHookPhases };
  /**
   * E4 (and re-application at agent start): the post-start limits script (`cpuset -l`, `rctl -a`), and, when
   * `applyNow`, the same limits on the running jail at once
   */
  'jail.apply-limits': { ctid: number; name: string; cpuSet: number[]; memoryBytes: number; applyNow: boolean };
  /** E20: replicate over SSH, stop, final incremental, start on the target (agent/jobs/jail-migrate.ts) */
  'jail.migrate': { ctid: number; name: string; dataset: string; target: { nodeId: string; address: string } };
  /** E7 */
  'pool.replace-device': { pool: string; guid: string; old: string; new: string };
  /** E11, and re-application at agent start */
  'tunable.apply': { name: string; value: string };
  /**
   * A diagnostic: reads sysctl values on the host (`sysctl -n <oid>` each) and holds for `holdMs`, reporting
   * progress. Proves the path control plane → queue → agent → host → report end to end (the fault tests use it).
   */
  'host.probe': { sysctls: string[]; holdMs?: number };
  /** E5: the VM's QEMU guest agent channel (shut-off VM) */
  'vm.guest-agent': { rid: number; domain: string; enabled: boolean };
  /** E6: how long a graceful shutdown may take (any state; kept in the VM's registration) */
  'vm.shutdown-wait-time': { rid: number; domain: string; waitTime: number };
  /** E17: cloud-init seed ISO (all three '' = off) (shut-off VM) */
  'vm.cloud-init': { rid: number; domain: string; data: string; metadata: string; networkConfig: string };
  /** E19: VNC graphics + GOP video (shut-off VM); `password` absent keeps the current one, '' clears it */
  'vm.vnc': { rid: number; domain: string; enabled: boolean; bind: string; port: number | null; resolution: string; wait: boolean; password?: string };
  /** E10: removes an orphaned VM's registration and runtime files (never datasets), re-checking libvirt first */
  'vm.purge-registration': { rid: number; domain: string };
  /** E9: the device (`bus/slot/function`) joins pptdevs[2,3] in /boot/loader.conf, `vmm_load` set */
  'ppt.import': { deviceID: string };
  /** E1: the group's supplementary members become `members` (`pw groupmod <g> -m/-d <user>`; applied steps undone on a failure) */
  'group.set-members': { group: string; members: string[] };
  /** E2: `pw groupdel <g>` */
  'group.delete': { group: string };
  /** E13: the node's whole iSCSI configuration, rendered as `/etc/ctl.conf`, checked, installed, loaded into ctld and confirmed with ctladm */
  'iscsi.apply-config': { config: IscsiConfig };
  /**
   * A backup job's run (agent/jobs/backup-run.ts): recursive snapshot of `source`, `zfs send -R [-I @common]`
   * into `zfs recv -u` of `target.dataset` on the target (a member node, or the job's SSH endpoint: both are
   * the task's peers, pinned), then retention on both sides. Its backup event is the one with its task id.
   */
  'backup.run': { jobId: number; source: string; retention: number; target: BackupRunTarget };
  /** E15: receive a job snapshot from the job's target into `<dataset>.restoring`, verify, swap in (agent/jobs/backup-restore.ts) */
  'backup.restore': BackupRestorePayload;
  /**
   * Managed TLS certificates (E22): the agent runs the ACME flow against `directoryUrl` (HTTP-01
   * answered by its own responder), with the account key and a new ECDSA P-256 key kept on the host, and
   * installs `<name>.crt`/`<name>.key`; its result is the certificate's fingerprint and validity
   */
  'certificate.issue': { certificateId: number; name: string; domain: string; directoryUrl: string; operation: 'initial' | 'renewal' };
  /**
   * An imported certificate: the agent installs `certificatePem` (leaf + chain) and `privateKeyPem` (a task
   * secret: it leaves the stored payload when the task ends) as `<name>.crt`/`<name>.key` and reports the
   * installed leaf's fingerprint, which must be `fingerprint` (the store's)
   */
  'certificate.install': { certificateId: number; name: string; certificatePem: string; privateKeyPem?: string; fingerprint: string };
  /** A self-signed certificate: the agent makes an ECDSA P-256 key and a certificate for `domain` on the host and installs both */
  'certificate.self-sign': { certificateId: number; name: string; domain: string; validityDays: number };
}

/**
 * A backup job's target as a task reaches it over SSH (where a backup run sends, where a restore reads): a member
 * node, or an SSH endpoint outside the cluster — where, as whom, and the `SHA256:…` fingerprint of the host key
 * the job pinned. The task's peer (shared/jobs/start.ts) is built from it, by {@link backupPeerId}.
 */
export type BackupPeer =
  | { kind: 'node'; nodeId: string; dataset: string }
  | { kind: 'ssh'; user: string; host: string; port: number; dataset: string; hostKeys: string[] };

/** The peer id (JobContext.peer) a task reaches a backup peer by: the node's id, or `ssh:<user>@<host>:<port>`. */
export const backupPeerId = (p: BackupPeer) => (p.kind === 'node' ? p.nodeId : `ssh:${p.user}@${p.host}:${p.port}`);

/** Where a backup run sends, with the E12 label (e.g. `node-b:tank/backups/web`). */
export type BackupRunTarget = BackupPeer & { label: string };

/** Where a restore reads the job's snapshots: the job's target. */
export type RestoreSource = BackupPeer;

export interface BackupRestorePayload {
  jobId: number;
  /** the backup event (mode `restore`) the task moves */
  eventId: number;
  /** the dataset restored on the runner */
  dataset: string;
  /** the snapshot (after `@`); null: the newest of the job's snapshots, resolved on the host */
  snapshot: string | null;
  source: RestoreSource;
  /** the guest on the dataset: stopped for the swap, started again if it ran */
  guest: { type: 'jail' | 'vm'; id: number; name: string } | null;
  /** a task secret: leaves the stored payload when the task ends, never logged */
  encryptionKey?: string;
  encryptionKeyFormat?: 'passphrase' | 'hex' | 'raw';
}
export type TaskKind = keyof TaskPayloads;

/** Every task kind, at run time (the compiler refuses this object when a kind of TaskPayloads is missing). */
const KIND_SET: { [K in TaskKind]: true } = {
  'jail.apply-hooks': true,
  'jail.apply-limits': true,
  'jail.migrate': true,
  'pool.replace-device': true,
  'tunable.apply': true,
  'host.probe': true,
  'vm.guest-agent': true,
  'vm.shutdown-wait-time': true,
  'vm.cloud-init': true,
  'vm.vnc': true,
  'vm.purge-registration': true,
  'ppt.import': true,
  'group.set-members': true,
  'group.delete': true,
  'iscsi.apply-config': true,
  'backup.run': true,
  'backup.restore': true,
  'certificate.issue': true,
  'certificate.install': true,
  'certificate.self-sign': true,
};
export const TASK_KINDS = Object.keys(KIND_SET) as TaskKind[];

/** A node's iSCSI configuration as the store holds it (shared/domain/iscsi/config.ts builds it; the agent renders ctl.conf). */
export interface IscsiConfig {
  portalGroups: Array<{ name: string; discoveryAuthGroup: string; listen: string[] }>;
  targets: Array<{ name: string; alias: string; authGroup: string; portalGroup: string; luns: Array<{ number: number; zvol: string }> }>;
}

/** A jail's six lifecycle hooks as a task carries them; shared/domain/jails/hooks.ts declares and checks them. */
export type JailHookPhases = Record<'prestart' | 'start' | 'poststart' | 'prestop' | 'stop' | 'poststop', { enabled: boolean; script: string }>;

/**
 * A queue message is a pointer, never an order: only the task id. Anyone who can send to a node's queue
 * can only make its agent ask the store (`start`) about a task of that node; what runs is the task row the
 * store returns. It also keeps user strings out of SQS, which refuses some characters (U+FFFE, U+FFFF, …).
 */
export interface QueueMessage {
  taskId: number;
}

/** The task id of a message body, or null when the body is not a task pointer (other fields are ignored). */
export function parseQueueMessage(body: string): QueueMessage | null {
  try {
    const m = JSON.parse(body) as { taskId?: unknown } | null;
    return m && typeof m === 'object' && Number.isSafeInteger(m.taskId) && (m.taskId as number) > 0 ? { taskId: m.taskId as number } : null;
  } catch {
    return null;
  }
}

/**
 * Kinds that set a resource's configuration to a value (E3, E4, E5, E6, E11, E17, E19): only the newest
 * one of a resource counts, so an older one is never applied after a newer one started (start refuses it).
 */
export const CONFIGURATION_KINDS: ReadonlySet<TaskKind> = new Set<TaskKind>([
  'jail.apply-hooks',
  'jail.apply-limits',
  'vm.guest-agent',
  'vm.shutdown-wait-time',
  'tunable.apply',
  'vm.cloud-init',
  'vm.vnc',
]);

/** Resource keys: what a task works on; tasks on one resource run one at a time. `jail:101`, `vm:7`, `pool:<guid>`, `tunable:<name>`. */
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
};
