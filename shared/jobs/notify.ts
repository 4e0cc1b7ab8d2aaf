import type { TaskRow, Db } from '#store/tables';

/**
 * A task that ends `failed` (or is cut off, `interrupted`) raises a global notification, counted by E25 and
 * dismissed by E24: the operator who queued the work may long be gone when it fails.
 */
export async function notifyTaskEnded(trx: Db, task: Pick<TaskRow, 'id' | 'kind' | 'node_id' | 'resource' | 'status' | 'error'>): Promise<void> {
  if (task.status !== 'failed' && task.status !== 'interrupted') return;
  await trx
    .insertInto('notifications')
    .values({
      kind: task.status === 'failed' ? 'task_failed' : 'task_interrupted',
      title: `Task ${task.id} (${task.kind} on ${task.resource}) ${task.status}`,
      body: task.error,
      severity: task.status === 'failed' ? 'error' : 'warning',
      scope: 'global',
      node_id: task.node_id,
    })
    .execute();
}
