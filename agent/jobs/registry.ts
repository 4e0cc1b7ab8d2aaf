import { isTaskKind, type TaskKind } from '#shared/agent-api/task-kinds';
import type { JobHandler } from './job.ts';

/**
 * The job of every task kind (shared/agent-api/task-kinds.ts lists the kinds): a kind without its job here, or a job
 * whose payload or result is not its kind's, does not compile. A capability adds its handler here: one entry that
 * imports it. A kind this agent does not know (a newer control plane's) fails its task with a clear error.
 * Handlers load when a task of their kind first runs, not at agent start: an idle agent holds none of their
 * code (and of their drivers and libraries) in memory.
 */
export const jobHandlers: { [K in TaskKind]: () => Promise<JobHandler<K>> } = {
  'host.probe': () => import('./host-probe.ts').then((m) => m.hostProbe),
  'pool.replace-device': () => import('./pool-replace-device.ts').then((m) => m.poolReplaceDevice),
  'tunable.apply': () => import('./tunable-apply.ts').then((m) => m.tunableApply),
  'jail.apply-hooks': () => import('./jail-hooks.ts').then((m) => m.applyJailHooks),
  'jail.apply-limits': () => import('./jail-limits.ts').then((m) => m.applyJailLimits),
  'jail.migrate': () => import('./jail-migrate.ts').then((m) => m.migrateJail),
  'jail.power': () => import('./jail-power.ts').then((m) => m.jailPower),
  'vm.guest-agent': () => import('./vm-guest-agent.ts').then((m) => m.vmGuestAgent),
  'vm.shutdown-wait-time': () => import('./vm-shutdown-wait-time.ts').then((m) => m.vmShutdownWaitTime),
  'vm.cloud-init': () => import('./vm-cloud-init.ts').then((m) => m.vmCloudInit),
  'vm.vnc': () => import('./vm-vnc.ts').then((m) => m.vmVnc),
  'vm.purge-registration': () => import('./vm-purge-registration.ts').then((m) => m.vmPurgeRegistration),
  'vm.power': () => import('./vm-power.ts').then((m) => m.vmPower),
  'ppt.import': () => import('./ppt-import.ts').then((m) => m.pptImport),
  'group.set-members': () => import('./group-members.ts').then((m) => m.groupSetMembers),
  'group.delete': () => import('./group-delete.ts').then((m) => m.groupDelete),
  'iscsi.apply-config': () => import('./iscsi-apply-config.ts').then((m) => m.iscsiApplyConfig),
  'backup.run': () => import('./backup-run.ts').then((m) => m.backupRun),
  'backup.restore': () => import('./backup-restore.ts').then((m) => m.restoreBackup),
  'certificate.issue': () => import('./certificate-issue.ts').then((m) => m.certificateIssue),
  'certificate.install': () => import('./certificate-install.ts').then((m) => m.certificateInstall),
  'certificate.self-sign': () => import('./certificate-self-sign.ts').then((m) => m.certificateSelfSign),
  'snapshot.create': () => import('./snapshots.ts').then((m) => m.snapshotCreate),
  'snapshot.rollback': () => import('./snapshots.ts').then((m) => m.snapshotRollback),
  'snapshot.destroy': () => import('./snapshots.ts').then((m) => m.snapshotDestroy),
};

export async function handlerFor(kind: string): Promise<JobHandler | undefined> {
  return isTaskKind(kind) ? ((await jobHandlers[kind]()) as JobHandler) : undefined;
}
