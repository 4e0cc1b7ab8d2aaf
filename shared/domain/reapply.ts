import type { TaskRow, Db } from '#store/tables';
import type { TaskKind, TaskPayloads } from '#shared/jobs/protocol';
import { createTask } from '#shared/jobs/tasks';
import { reapplySources } from './reapply-sources.ts';


/** One piece of persisted configuration to apply again on the host, as the job that applies it. */
export interface ReapplyItem<K extends TaskKind = TaskKind> {
  kind: K;
  resource: string;
  payload: TaskPayloads[K];
}

/** A capability's persisted host configuration for a node (tunables, jail hooks, CPU limits …). */
export type ReapplySource = (db: Db, nodeId: string) => Promise<ReapplyItem[]>;

/** Everything persisted for the node that its agent must re-apply at start (the store is the truth; the host may have lost it), in source order. */
export async function persistedConfiguration(db: Db, nodeId: string): Promise<ReapplyItem[]> {
  const items: ReapplyItem[] = [];
  for (const source of reapplySources) items.push(...(await source(db, nodeId)));
  return items;
}

/** Who re-application tasks are requested by, in task lists. */
export const REAPPLY_REQUESTER = 'agent-start';

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
