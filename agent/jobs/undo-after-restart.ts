import type { TaskKind, TaskPayloads } from '#shared/jobs/kinds';
import type { Executor } from '../executors/executor.ts';

/** Undoes a task's host work from its payload alone; says what it did (or why not), for the task's error. */
export type UndoAfterRestart<K extends TaskKind> = (exec: Executor, payload: TaskPayloads[K]) => Promise<string>;

/**
 * The undo steps of the kinds marked `undoAfterRestart` (shared/jobs/kinds.ts): a cancel an operator asked for
 * while the previous agent process ran the task, carried out by this one at start (agent/runtime/agent.ts).
 */
export const undoAfterRestart: { [K in TaskKind]?: () => Promise<UndoAfterRestart<K>> } = {
  'pool.replace-device': () => import('./pool-replace-device.ts').then((m) => m.undoReplacement),
};
