import type { Db } from '#store/tables';
import type { KindOutcome } from '#shared/jobs/lifecycle';

/**
 * A failed `iscsi.apply-config` left the host's `/etc/ctl.conf` as it was (ctld -t refused the new one, or it
 * could not be installed): the LUNs that task added are removed again, so the store describes the host and
 * their LUN numbers and zvols are free. A cancelled one never installed its file either: the same. The failure itself is the task's error and raises a notification.
 */
export const applyIscsiTaskOutcome: KindOutcome<'iscsi.apply-config'> = async (trx: Db, task) => {
  if (task.status !== 'failed' && task.status !== 'cancelled') return;
  await trx.deleteFrom('iscsi_luns').where('task_id', '=', task.id).execute();
};
