import type { TaskRow } from '#store/tables';
import { isTaskKind, type TaskKind } from '#shared/agent-api/task-kinds';
import type { TaskOf } from './lifecycle.ts';
import type { ValidationError } from '#generated/task-results.js';
import { problemsOf } from './result-check.ts';
import { kindValidators } from './result-validators.ts';

/**
 * The stored task as its kind's (null for a kind this control plane does not know): its payload, and a
 * successful task's result, checked against the kind's schemas, which the kind's types are read from, so an outcome reads
 * them as typed without a cast. The control plane wrote the payload and checked the result at finish; one that is
 * not its kind's now (a store edited by hand, a payload of an older release) stops the transaction with the
 * reason instead of reaching an outcome that would misread it.
 */
export async function taskOfItsKind(task: TaskRow): Promise<TaskOf<TaskKind> | null> {
  const kind = task.kind;
  if (!isTaskKind(kind)) return null;
  const v = await kindValidators(kind);
  const { payload, result } = task;
  const unlike = (what: string, errors: ValidationError[] | null | undefined) =>
    new Error(`task ${task.id} (${kind}): its stored ${what} is not its kind's (${problemsOf(what, errors)})`);
  if (!v.payload(payload)) throw unlike('payload', v.payload.errors);
  if (result === null || v.result(result)) return { ...task, kind, payload, result };
  // a task that did not succeed keeps whatever its agent reported, for the operator (the finish route fails a
  // success whose result is not its kind's and keeps that result too): to its outcome it has none
  if (task.status !== 'success') return { ...task, kind, payload, result: null };
  throw unlike('result', v.result.errors);
}
