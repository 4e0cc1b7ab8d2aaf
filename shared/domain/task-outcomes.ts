import type { TaskOutcome } from '#shared/jobs/lifecycle';
import type { TaskRow, Db } from '#store/tables';
import { completeMigration } from './jails/migrate.ts';
import { applyVmTaskOutcome } from './vms/outcomes.ts';
import { applyPptTaskOutcome } from './ppt/outcomes.ts';
import { applyGroupTaskOutcome } from './groups/outcomes.ts';
import { applyIscsiTaskOutcome } from './iscsi/outcomes.ts';
import { applyBackupRunOutcome } from './backups/run-events.ts';
import { applyRestoreOutcome } from './backups/restore.ts';
import { applyCertificateTaskOutcome } from './certificates/outcomes.ts';
import { applyTunableTaskOutcome } from './tunables/outcomes.ts';
import { applyJailTaskOutcome } from './jails/outcomes.ts';

/**
 * What the store learns from a task's outcome, in the transaction that records it (finishTask, cancelTask, …):
 * e.g. a successful jail migration (E20) moves the guest to its target node. A capability adds its effect here.
 * Every kind whose request persisted something undoes it when the task ends `cancelled` (shared/domain/task-undo.ts);
 * E7, E20 and the diagnostic `host.probe` persist nothing but their task.
 */
const effects: Array<(trx: Db, task: TaskRow) => Promise<void>> = [
  completeMigration, // jail.migrate success: the guest belongs to the target node
  applyVmTaskOutcome, // vm.*: a cancel puts back what the request changed; a failure re-projects the host's last report
  applyPptTaskOutcome, // ppt.import failed or cancelled: the device is not managed (its record goes)
  applyGroupTaskOutcome, // group.*: a cancel puts back what the request changed; a failure brings back the host's last reported groups
  applyIscsiTaskOutcome, // iscsi.apply-config failed or cancelled: the LUNs it added are removed again
  applyBackupRunOutcome, // backup.run: its backup event follows the task (running, success, failed, interrupted)
  applyRestoreOutcome, // backup.restore: its backup event follows the task (running, success, failed)
  (trx, task) => applyCertificateTaskOutcome(trx, task), // certificate.issue/.install/.self-sign: ready with the host's fingerprint, or failed with the task's error
  applyTunableTaskOutcome, // tunable.apply cancelled: the persisted setting as it was before the request
  applyJailTaskOutcome, // jail.apply-hooks/-limits cancelled: the jail's persisted hooks or CPU limit as before the request
];

/** Given to the task transitions (startTask, finishTask, the interruption of stale tasks, the sweeper) by the agent endpoints. */
export const applyTaskOutcome: TaskOutcome = async (trx, task) => {
  for (const effect of effects) await effect(trx, task);
};
