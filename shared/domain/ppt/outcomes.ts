import type { Db } from '#store/tables';
import type { KindOutcome } from '#shared/jobs/lifecycle';

/**
 * What the store learns from a `ppt.import` task (registered in shared/domain/task-outcomes.ts): when the
 * host could not write loader.conf, the device is not passed through at the next boot, so it is not
 * managed either — its record goes, and importing it again queues a new task instead of answering
 * Already Managed. So too when the task was cancelled (before it started, or stopped by its agent): the
 * request is as if never made. Only the record the task was created for.
 */
export const applyPptTaskOutcome: KindOutcome<'ppt.import'> = async (trx: Db, task) => {
  if (task.status !== 'failed' && task.status !== 'cancelled') return;
  await trx.deleteFrom('ppt_devices').where('node_id', '=', task.node_id).where('task_id', '=', task.id).execute();
};
