import { sql } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import type { Db, TaskRow } from '#store/tables';
import { afterTaskEnded, type TaskOutcome } from './lifecycle.ts';
import { getTask } from './tasks.ts';

/**
 * Cancelling a task, asked by an operator:
 * - `queued` → `cancelled` at once; its agent, asking to start it, is told not to run it;
 * - `running` → stays `running` with the request recorded: its agent learns it from the answer to its next
 *   progress report or heartbeat, stops the running command, undoes what the job can undo, and reports
 *   `cancelled` (a request repeated meanwhile is answered the same way);
 * - already ended (success, failed, interrupted, cancelled) → 409 `task_already_finished`; unknown → 404.
 */
export type CancelState = 'cancelled' | 'cancelling';

export async function cancelTask(trx: Db, taskId: number, by: string, applyOutcome: TaskOutcome): Promise<{ task: TaskRow; state: CancelState }> {
  const task = await getTask(trx, taskId);
  if (task.status === 'queued') {
    const done = await trx
      .updateTable('tasks')
      .set({
        status: 'cancelled',
        phase: 'cancelled',
        error: `cancelled by ${by} before it started`,
        cancel_requested_at: sql<Date>`now()`,
        cancel_requested_by: by,
        finished_at: sql<Date>`now()`,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', taskId)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirstOrThrow();
    await afterTaskEnded(trx, done, applyOutcome);
    return { task: done, state: 'cancelled' };
  }
  if (task.status === 'running') {
    if (task.cancel_requested_at) return { task, state: 'cancelling' };
    const asked = await trx
      .updateTable('tasks')
      .set({ cancel_requested_at: sql<Date>`now()`, cancel_requested_by: by, updated_at: sql<Date>`now()` })
      .where('id', '=', taskId)
      .where('status', '=', 'running')
      .returningAll()
      .executeTakeFirstOrThrow();
    return { task: asked, state: 'cancelling' };
  }
  throw conflict('task_already_finished', `task ${taskId} already ended ${task.status}; only a queued or running task can be cancelled`);
}

/** The node's running tasks whose agent is to stop them (told in the heartbeat's answer). */
export async function cancelRequestedTasks(db: Db, nodeId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('tasks')
    .select('id')
    .where('node_id', '=', nodeId)
    .where('status', '=', 'running')
    .where('cancel_requested_at', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
