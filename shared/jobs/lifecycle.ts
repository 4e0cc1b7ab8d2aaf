import { sql } from 'kysely';
import { conflict, forbidden } from '#shared/errors/domain-errors';
import type { TaskRow, Db } from '#store/tables';
import { scrubTaskSecrets } from './secrets.ts';
import { OUTPUT_TAIL_CHARS, type FinishReport, type ProgressReport } from '#shared/agent-api/reports';
import { getTask } from './tasks.ts';
import { resultProblem } from './result-check.ts';
import { undoesAfterRestart, type TaskKind, type TaskPayload, type TaskResult } from '#shared/agent-api/task-kinds';
import type { PendingCancel } from '#shared/agent-api/contract';

/**
 * The task transitions an agent reports, each idempotent so that retried reports are harmless:
 *   queued → running (start; attempts + 1) → success | failed (finish);
 *   running → interrupted (the node's agent restarted, or the node went silent — see sweeper.ts);
 *   running → cancelled (finish, only after an operator asked for it — see cancel.ts).
 * A finish for an `interrupted` task of the same attempt is still accepted: the work did complete, and its
 * report was only late (an agent that could not reach the API for a while).
 */

/**
 * What the store learns from a task that started or ended (e.g. a migrated jail moves to its target node), in
 * the transaction that records it. The domain binds one per kind (shared/domain/task-outcomes.ts) and hands
 * the transitions over with it bound (shared/domain/task-transitions.ts): jobs know no capability.
 */
export type TaskOutcome = (trx: Db, task: TaskRow) => Promise<void>;

/** A task row of kind K: its payload and (once checked at finish) its result typed by the kind's schemas. */
export type TaskOf<K extends TaskKind> = Omit<TaskRow, 'kind' | 'payload' | 'result'> & { kind: K; payload: TaskPayload<K>; result: TaskResult<K> | null };

/** The outcome of one kind: it sees only tasks of that kind. */
export type KindOutcome<K extends TaskKind> = (trx: Db, task: TaskOf<K>) => Promise<void>;

/**
 * What follows every end of a task, in the transaction that ends it: what the domain learns from it (its task
 * event and notification, the kind's outcome — shared/domain/task-outcomes.ts), which still sees the whole
 * payload, then the payload's secrets dropped.
 */
export async function afterTaskEnded(trx: Db, task: TaskRow, applyOutcome: TaskOutcome): Promise<void> {
  await applyOutcome(trx, task);
  await scrubTaskSecrets(trx, task); // an ended task keeps no secrets
}

const appendOutput = (text: string | undefined) => (text ? sql<string>`right(output || ${text}, ${OUTPUT_TAIL_CHARS})` : sql<string>`output`);

/** The task, if it belongs to the agent's node: a token for node X can never touch node Y's tasks. */
export async function nodeTask(db: Db, nodeId: string, taskId: number): Promise<TaskRow> {
  const task = await getTask(db, taskId);
  if (task.node_id !== nodeId) throw forbidden(`task ${taskId} belongs to node ${task.node_id}, not to this agent's node ${nodeId}`);
  return task;
}

export async function reportProgress(trx: Db, nodeId: string, taskId: number, r: ProgressReport): Promise<TaskRow> {
  const task = await nodeTask(trx, nodeId, taskId);
  if (task.status !== 'running' || task.attempts !== r.attempt) {
    throw conflict('task_not_running', `task ${taskId} is ${task.status} (attempt ${task.attempts}); progress of attempt ${r.attempt} is not recorded`);
  }
  return trx
    .updateTable('tasks')
    .set({ phase: r.phase, progress: r.progress, output: appendOutput(r.output), updated_at: sql<Date>`now()` })
    .where('id', '=', taskId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function finishTask(
  trx: Db,
  nodeId: string,
  taskId: number,
  r: FinishReport,
  applyOutcome: TaskOutcome,
): Promise<{ task: TaskRow; changed: boolean }> {
  const task = await nodeTask(trx, nodeId, taskId);
  if (task.status === 'queued') throw conflict('task_not_started', `task ${taskId} has not been started; call start first`);
  if (task.attempts !== r.attempt) {
    throw conflict('task_attempt_superseded', `task ${taskId} is at attempt ${task.attempts}; the report of attempt ${r.attempt} is not recorded`);
  }
  // a success whose result is not the kind's fails: its outcome could not trust it
  const invalid = r.status === 'success' ? await resultProblem(task.kind, r.result) : null;
  const status = invalid ? 'failed' : r.status;
  if (task.status === status) return { task, changed: false }; // a retried report that already landed
  if (task.status !== 'running' && task.status !== 'interrupted') {
    throw conflict('task_already_finished', `task ${taskId} already ended ${task.status}`);
  }
  if (r.status === 'cancelled' && !task.cancel_requested_at) {
    throw conflict('task_not_cancelling', `task ${taskId} was not asked to cancel; report success or failed`);
  }
  const error = invalid
    ? invalid
    : r.status === 'failed'
      ? r.error?.trim() || 'the task failed without a message'
      : r.status === 'cancelled'
        ? r.error?.trim() || `cancelled by ${task.cancel_requested_by}`
        : '';
  const done = await trx
    .updateTable('tasks')
    .set({
      status,
      error,
      result: r.result === undefined ? null : JSON.stringify(r.result),
      output: appendOutput(r.output),
      phase: status === 'success' ? 'done' : status,
      progress: status === 'success' ? 100 : sql<number>`progress`,
      finished_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', taskId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await afterTaskEnded(trx, done, applyOutcome);
  return { task: done, changed: true };
}

/** Marks `running` tasks `interrupted` with a reason, notifies, and applies their outcome. Returns the ids. */
export async function interruptTasks(trx: Db, ids: number[], reason: string, applyOutcome: TaskOutcome): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('tasks')
    .set({ status: 'interrupted', error: reason, finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('id', 'in', ids)
    .where('status', '=', 'running')
    .returningAll()
    .execute();
  for (const t of rows) await afterTaskEnded(trx, t, applyOutcome);
  return rows.map((r) => r.id);
}

/**
 * At agent start every `running` task of its node is stale: the agent has just started and runs nothing, so
 * whatever ran them is gone; they become `interrupted`, not re-run: host work cut off half-way needs a person.
 * Except a task an operator asked to cancel whose kind the agent can undo after a restart (`undoAfterRestart`):
 * the cancel is not lost with the process — it stays `running` with its request (pendingCancels) until the
 * restarted agent has undone it and reports it `cancelled`.
 */
export async function interruptStaleTasks(trx: Db, nodeId: string, applyOutcome: TaskOutcome): Promise<number[]> {
  const stale = await trx
    .selectFrom('tasks')
    .select(['id', 'kind', 'cancel_requested_at'])
    .where('node_id', '=', nodeId)
    .where('status', '=', 'running')
    .execute();
  return interruptTasks(
    trx,
    stale.filter((r) => !(r.cancel_requested_at && undoesAfterRestart(r.kind))).map((r) => r.id),
    'interrupted: the agent restarted while the task was running',
    applyOutcome,
  );
}

/** The node's running tasks whose cancel its restarted agent is to carry out (see interruptStaleTasks). */
export async function pendingCancels(db: Db, nodeId: string): Promise<PendingCancel[]> {
  const rows = await db
    .selectFrom('tasks')
    .select(['id', 'kind', 'attempts', 'payload', 'cancel_requested_by'])
    .where('node_id', '=', nodeId)
    .where('status', '=', 'running')
    .where('cancel_requested_at', 'is not', null)
    .orderBy('id')
    .execute();
  return rows
    .filter((r) => undoesAfterRestart(r.kind))
    .map((r) => ({ id: r.id, kind: r.kind, attempt: r.attempts, payload: r.payload, requestedBy: r.cancel_requested_by ?? 'an operator' }));
}
