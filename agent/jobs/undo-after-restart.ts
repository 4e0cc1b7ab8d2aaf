import type { TaskKind, TaskPayloads } from '#shared/agent-api/task-kinds';
import type { Executor } from '../executors/executor.ts';

/** Undoes a task's host work from its payload alone; says what it did (or why not), for the task's error. */
export type UndoAfterRestart<K extends TaskKind> = (exec: Executor, payload: TaskPayloads[K]) => Promise<string>;

/**
 * The undo steps of the kinds marked `undoAfterRestart` (shared/agent-api/task-kinds.ts): a cancel an operator asked for
 * while the previous agent process ran the task, carried out by this one at start (agent/runtime/agent.ts).
 */
// pool.replace-device: detaching the new device of a `replacing-N` vdev cancels the replacement, the old device
// staying (openzfs/zfs tests/zfs-tests/tests/functional/cli_root/zpool_wait/scan/zpool_wait_replace_cancel.ksh:
// "Cancel the replacement by detaching the replacing disk", after which `zpool wait -t replace` returns).
export const undoAfterRestart: { [K in TaskKind]?: () => Promise<UndoAfterRestart<K>> } = {
  'pool.replace-device': () => import('./pool-replace-device.ts').then((m) => m.undoReplacement),
};
