import type { Db, TaskRow } from '#store/tables';
import { createTask } from '#shared/jobs/tasks';
import { REAPPLY_REQUESTER, type ReapplyItem } from './reapply-item.ts';
import { reapplySources } from './reapply-sources.ts';

/** Everything persisted for the node that its agent must re-apply at start (the store is the truth; the host may have lost it), in source order. */
export async function persistedConfiguration(db: Db, nodeId: string): Promise<ReapplyItem[]> {
  const items: ReapplyItem[] = [];
  for (const source of reapplySources) items.push(...(await source(db, nodeId)));
  return items;
}

/**
 * At registration: one task per item, in the registration's transaction. They are not sent to the queue —
 * the agent runs them from the registration answer before it takes other work, so configuration is in place
 * first; if the agent dies before, the sweeper sends them like any unsent task. Failures notify like any task.
 */
export async function queueReapplyTasks(trx: Db, nodeId: string): Promise<TaskRow[]> {
  const tasks: TaskRow[] = [];
  for (const item of await persistedConfiguration(trx, nodeId)) {
    tasks.push(await createTask(trx, { ...item, nodeId, requestedBy: REAPPLY_REQUESTER }));
  }
  return tasks;
}
