import type { Executor } from '../executors/executor.ts';
import type { TaskKind, TaskPayloads } from '../../shared/jobs/protocol.ts';

/** What a job handler gets: the host, the task, and a way to report progress. */
export interface JobContext {
  exec: Executor;
  task: { id: number; kind: TaskKind; resource: string; nodeId: string; attempt?: number };
  /** an executor on another node's host (by its address), over SSH; the caller closes it */
  peer?(address: string): Executor;
  /** reports phase and 0–100 progress (and optionally a line of output) to the control plane */
  progress(phase: string, percent: number, output?: string): Promise<void>;
  /** aborted when the agent is shutting down hard */
  signal: AbortSignal;
}

/**
 * A job handler does the host work for one task kind. It resolves with a JSON result (stored on the task)
 * or throws; the thrown message (e.g. zpool's own stderr) becomes the task's error.
 */
export type JobHandler<K extends TaskKind = TaskKind> = (ctx: JobContext, payload: TaskPayloads[K]) => Promise<unknown>;
