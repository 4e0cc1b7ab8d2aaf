import { resourceKey } from '#shared/agent-api/task-kinds';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';
import type { Db } from '#store/tables';

/** A jail on its way to another node: the queued or running `jail.migrate` task and where it goes. */
export interface JailMove {
  taskId: number;
  targetNodeId: string;
}

/**
 * The jail's migration in flight, or null. While it runs the hosts' reports lag behind (the source stops
 * listing the jail before the target lists it), so a reader shows "moving to …" from this rather than losing it.
 */
export async function jailMove(db: Db, ctid: number): Promise<JailMove | null> {
  const task = await db
    .selectFrom('tasks')
    .select(['id', 'payload'])
    .where('resource', '=', resourceKey.jail(ctid))
    .where('kind', '=', 'jail.migrate')
    .where('status', 'in', ACTIVE_STATUSES)
    .orderBy('id')
    .executeTakeFirst();
  const target = (task?.payload as { target?: { nodeId?: unknown } } | undefined)?.target?.nodeId;
  return task && typeof target === 'string' ? { taskId: task.id, targetNodeId: target } : null;
}
