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


/**
 * What the store learns from a task's outcome, in the transaction that records it (finishTask): e.g. a
 * successful jail migration (E20) moves the guest to its target node. A capability adds its effect here.
 */
const effects: Array<(trx: Db, task: TaskRow) => Promise<void>> = [
  completeMigration, // jail.migrate success: the guest belongs to the target node
  applyVmTaskOutcome, // vm.*: a failure re-projects the host's last report; a VNC password leaves the payload
  applyPptTaskOutcome, // ppt.import failure: the device is not managed (its record goes)
  applyGroupTaskOutcome, // group.*: a failure brings back the host's last reported groups
  applyIscsiTaskOutcome, // iscsi.apply-config failed: the LUNs it added are removed again
  applyBackupRunOutcome, // backup.run: its backup event follows the task (running, success, failed, interrupted)
  applyRestoreOutcome, // backup.restore: its backup event follows the task (running, success, failed)
  (trx, task) => applyCertificateTaskOutcome(trx, task), // certificate.issue/.install/.self-sign: ready with the host's fingerprint, or failed with the task's error
];

/** Given to the task transitions (startTask, finishTask, the interruption of stale tasks, the sweeper) by the agent endpoints. */
export const applyTaskOutcome: TaskOutcome = async (trx, task) => {
  for (const effect of effects) await effect(trx, task);
};
