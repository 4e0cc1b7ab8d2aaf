import type { Db, TaskRow } from '#store/tables';
import { REAPPLY_REQUESTER } from './reapply-item.ts';

/**
 * Undoing a cancelled task's request. A task cancelled before it started is as if never requested: what its
 * request persisted (its `undo`, written with the task, see createTask) is put back by its capability's
 * outcome, in the cancel's transaction. A running task its agent stopped is undone the same way: the agent
 * reports `cancelled` only once the host is as it was.
 */

/** A task whose request is to be undone: it ended `cancelled`. */
export const isCancelled = (task: Pick<TaskRow, 'status'>) => task.status === 'cancelled';

/** A cancelled task that never reached its agent. */
export const cancelledBeforeStart = (task: Pick<TaskRow, 'status' | 'started_at'>) => task.status === 'cancelled' && task.started_at === null;

/**
 * The values a cancelled task's request replaced, when they are still the store's to put back; else null.
 *
 * Configuration requests of one kind on one resource replace each other (the newest wins): when a newer
 * request of the same kind exists, the store holds its value, not this one's, so nothing is restored now —
 * instead this task's `undo` passes to that newer request (if it is still active), whose own cancellation
 * then restores what was there before both. Re-applications at agent start and requests cancelled before
 * they started are not requests that replaced anything.
 */
export async function restorableUndo<T>(trx: Db, task: TaskRow): Promise<T | null> {
  if (!isCancelled(task) || task.undo === null || task.undo === undefined) return null;
  const newer = await trx
    .selectFrom('tasks')
    .select(['id', 'status', 'undo'])
    .where('node_id', '=', task.node_id)
    .where('resource', '=', task.resource)
    .where('kind', '=', task.kind)
    .where('id', '>', task.id)
    .where('requested_by', '<>', REAPPLY_REQUESTER)
    .where((eb) => eb.or([eb('status', '<>', 'cancelled'), eb('started_at', 'is not', null)]))
    .orderBy('id')
    .executeTakeFirst();
  if (!newer) return task.undo as T;
  if ((newer.status === 'queued' || newer.status === 'running') && newer.undo !== null) {
    await trx
      .updateTable('tasks')
      .set({ undo: JSON.stringify(task.undo) })
      .where('id', '=', newer.id)
      .execute();
  }
  return null;
}
