import { isTaskKind, type TaskKind } from '#shared/jobs/kinds';
import type { JobHandler } from './job.ts';
import { hostProbe } from './host-probe.ts';
import { poolReplaceDevice } from './pool-replace-device.ts';
import { tunableApply } from './tunable-apply.ts';
import { applyJailHooks } from './jail-hooks.ts';
import { applyJailLimits } from './jail-limits.ts';
import { migrateJail } from './jail-migrate.ts';
import { vmGuestAgent } from './vm-guest-agent.ts';
import { vmShutdownWaitTime } from './vm-shutdown-wait-time.ts';
import { vmCloudInit } from './vm-cloud-init.ts';
import { vmVnc } from './vm-vnc.ts';
import { vmPurgeRegistration } from './vm-purge-registration.ts';
import { pptImport } from './ppt-import.ts';
import { groupSetMembers } from './group-members.ts';
import { groupDelete } from './group-delete.ts';
import { iscsiApplyConfig } from './iscsi-apply-config.ts';
import { backupRun } from './backup-run.ts';
import { restoreBackup } from './backup-restore.ts';
import { certificateIssue } from './certificate-issue.ts';
import { certificateInstall } from './certificate-install.ts';
import { certificateSelfSign } from './certificate-self-sign.ts';

/**
 * The job of every task kind (shared/jobs/kinds.ts lists the kinds): a kind without its job here, or a job
 * whose payload or result is not its kind's, does not compile. A capability adds its handler here: one import,
 * one entry. A kind this agent does not know (a newer control plane's) fails its task with a clear error.
 */
export const jobHandlers: { [K in TaskKind]: JobHandler<K> } = {
  'host.probe': hostProbe,
  'pool.replace-device': poolReplaceDevice,
  'tunable.apply': tunableApply,
  'jail.apply-hooks': applyJailHooks,
  'jail.apply-limits': applyJailLimits,
  'jail.migrate': migrateJail,
  'vm.guest-agent': vmGuestAgent,
  'vm.shutdown-wait-time': vmShutdownWaitTime,
  'vm.cloud-init': vmCloudInit,
  'vm.vnc': vmVnc,
  'vm.purge-registration': vmPurgeRegistration,
  'ppt.import': pptImport,
  'group.set-members': groupSetMembers,
  'group.delete': groupDelete,
  'iscsi.apply-config': iscsiApplyConfig,
  'backup.run': backupRun,
  'backup.restore': restoreBackup,
  'certificate.issue': certificateIssue,
  'certificate.install': certificateInstall,
  'certificate.self-sign': certificateSelfSign,
};

export function handlerFor(kind: string): JobHandler | undefined {
  return isTaskKind(kind) ? (jobHandlers[kind] as JobHandler) : undefined;
}
