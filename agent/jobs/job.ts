import type { Executor } from '../executors/executor.ts';
import type { TaskKind, TaskPayloads, TaskResults } from '#shared/agent-api/task-kinds';
import type { PeerHost } from '#shared/agent-api/tasks';

/** What a job handler gets: the host, the task, and a way to report progress. */
export interface JobContext {
  exec: Executor;
  task: { id: number; kind: TaskKind; resource: string; nodeId: string; attempt?: number };
  /**
   * an executor on another node's host, over SSH, pinned to the host keys the control plane handed out
   * with the task (`peers`); throws for a node the task did not name. The caller closes it.
   */
  peer?(nodeId: string): Executor;
  /** the other nodes' hosts this task may reach, as the control plane answered at start */
  peers?: PeerHost[];
  /** reports phase and 0–100 progress (and optionally a line of output) to the control plane */
  progress(phase: string, percent: number, output?: string): Promise<void>;
  /** aborted when the agent is shutting down hard, or the task was cancelled */
  signal: AbortSignal;
  /**
   * aborted when an operator cancelled the task: the command running then is stopped, and a job with an
   * undo step runs it (commands run after the abort are not stopped); the task then ends `cancelled`
   */
  cancelled?: AbortSignal;
}

/**
 * A job handler does the host work for one task kind. It resolves with the kind's result (its schema in
 * shared/agent-api/task-kinds.ts; the control plane checks it and stores it on the task) or throws; the thrown message
 * (e.g. zpool's own stderr) becomes the task's error.
 */
export type JobHandler<K extends TaskKind = TaskKind> = (ctx: JobContext, payload: TaskPayloads[K]) => Promise<TaskResults[K]>;
