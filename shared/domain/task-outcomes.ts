import type { Db } from '#store/tables';
import type { KindOutcome, TaskOf, TaskOutcome } from '#shared/jobs/lifecycle';
import { taskOfItsKind } from '#shared/jobs/task-of-kind';
import type { TaskKind } from '#shared/agent-api/task-kinds';
import { notifyTaskEnded } from './notifications/raise.ts';
import { completeMigration } from './jails/migrate.ts';
import { applyVmTaskOutcome } from './vms/outcomes.ts';
import { applyPptTaskOutcome } from './ppt/outcomes.ts';
import { applyGroupDeleteOutcome, applyGroupMembersOutcome } from './groups/outcomes.ts';
import { applyIscsiTaskOutcome } from './iscsi/outcomes.ts';
import { applyBackupRunOutcome } from './backups/run-events.ts';
import { applyRestoreOutcome } from './backups/restore.ts';
import { applyCertificateTaskOutcome } from './certificates/outcomes.ts';
import { applyTunableTaskOutcome } from './tunables/outcomes.ts';
import { applyJailTaskOutcome } from './jails/outcomes.ts';
import { applyJailPowerOutcome, applyVmPowerOutcome } from './power/power.ts';

/** A kind whose request persisted nothing but its task: its end changes nothing else. */
const nothing = async () => undefined;

/**
 * What the store learns from a task of each kind, in the transaction that starts or ends it (startTask,
 * finishTask, cancelTask, the interruption of stale tasks, the sweeper — shared/domain/task-transitions.ts):
 * e.g. a successful jail migration (E20) moves the guest to its target node. A kind without its outcome here
 * does not compile. Every kind whose request persisted something undoes it when the task ends `cancelled`
 * (shared/domain/task-undo.ts).
 */
export const taskOutcomes: { [K in TaskKind]: KindOutcome<K> } = {
  'jail.apply-hooks': applyJailTaskOutcome, // cancelled: the jail's persisted hooks as before the request
  'jail.apply-limits': applyJailTaskOutcome, // cancelled: the jail's persisted CPU limit as before the request
  'jail.migrate': completeMigration, // success: the guest belongs to the target node
  'jail.power': applyJailPowerOutcome, // success: the jail's state as the agent found it after acting
  'pool.replace-device': nothing,
  'tunable.apply': applyTunableTaskOutcome, // cancelled: the persisted setting as it was before the request
  'host.probe': nothing, // a diagnostic
  // vm.*: a cancel puts back what the request changed; a failure re-projects the host's last report
  'vm.guest-agent': applyVmTaskOutcome,
  'vm.shutdown-wait-time': applyVmTaskOutcome,
  'vm.cloud-init': applyVmTaskOutcome,
  'vm.vnc': applyVmTaskOutcome,
  'vm.purge-registration': applyVmTaskOutcome,
  'vm.power': applyVmPowerOutcome, // success: the VM's state as the agent found it after acting
  'ppt.import': applyPptTaskOutcome, // failed or cancelled: the device is not managed (its record goes)
  // group.*: a cancel puts back what the request changed; a failure brings back the host's last reported groups
  'group.set-members': applyGroupMembersOutcome,
  'group.delete': applyGroupDeleteOutcome,
  'iscsi.apply-config': applyIscsiTaskOutcome, // failed or cancelled: the LUNs it added are removed again
  'backup.run': applyBackupRunOutcome, // its backup event follows the task (running, success, failed, interrupted)
  'backup.restore': applyRestoreOutcome, // its backup event follows the task (running, success, failed)
  // ready with the host's fingerprint, or failed with the task's error
  'certificate.issue': applyCertificateTaskOutcome,
  'certificate.install': applyCertificateTaskOutcome,
  'certificate.self-sign': applyCertificateTaskOutcome,
  // snapshots: the request persisted nothing but its task; the host's next inventory shows the result
  'snapshot.create': nothing,
  'snapshot.rollback': nothing,
  'snapshot.destroy': nothing,
};

const ENDED = new Set(['success', 'failed', 'interrupted', 'cancelled']);

/** A kind's outcome for a task of that kind: K ties the two, so the call needs no cast. */
const outcomeOfItsKind = <K extends TaskKind>(trx: Db, task: TaskOf<K>) => taskOutcomes[task.kind](trx, task);

/**
 * What follows a task's start or end: an ended task's event and notification (./notifications/raise.ts), then
 * the outcome of its kind, which reads the task as its kind's (a kind this control plane does not know has none).
 */
export const applyTaskOutcome: TaskOutcome = async (trx, task) => {
  if (ENDED.has(task.status)) await notifyTaskEnded(trx, task);
  const typed = await taskOfItsKind(task);
  if (typed) await outcomeOfItsKind<TaskKind>(trx, typed);
};
