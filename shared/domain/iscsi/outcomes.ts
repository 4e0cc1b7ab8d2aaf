import type { Db, TaskRow } from '#store/tables';

/**
 * A failed `iscsi.apply-config` left the host's `/etc/ctl.conf` as it was (ctld -t refused the new one, or it
 * could not be installed): the LUNs that task added are removed again, so the store describes the host and
 * their LUN numbers and zvols are free. A cancelled one never installed its file either: the same. The failure itself is the task's error and raises a notification.
 */
export async function applyIscsiTaskOutcome(trx: Db, task: TaskRow): Promise<void> {
  if (task.kind !== 'iscsi.apply-config' || (task.status !== 'failed' && task.status !== 'cancelled')) return;
  await trx.deleteFrom('iscsi_luns').where('task_id', '=', task.id).execute();
}
