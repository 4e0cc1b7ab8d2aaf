import { abortable } from '../executors/abortable.ts';
import type { Executor } from '../executors/executor.ts';
import { CommandError } from '../executors/executor.ts';
import type { JobContext } from '../jobs/job.ts';
import { handlerFor } from '../jobs/registry.ts';
import type { FinishReport, StartAnswer } from '#shared/agent-api/contract';
import type { PeerHost } from '#shared/agent-api/tasks';
import { ApiError, type RetryPolicy } from './api.ts';
import type { AgentClient } from './client.ts';
import type { Logger } from './log.ts';
import type { Spool } from './spool.ts';
import { OUTPUT_TAIL_CHARS } from '#shared/agent-api/reports';

/**
 * A unit of work as the agent sees it: a task id, from a queue message or the registration's re-apply list.
 * What runs is what the store answers to `start` for that id, never what a message says.
 */
export interface WorkItem {
  taskId: number;
  /** the task's resource key as the store names it, learned when the store told it to wait (`waiting`) */
  resource?: string;
}

/**
 * - `done`: the outcome landed (or the control plane no longer wants it): the message can go;
 * - `skipped`: the task was already started or finished elsewhere (a duplicate delivery): the message can go;
 * - `abandoned`: shutdown came first; the message stays in the queue (and any outcome in the spool);
 * - `waiting`: another task of its resource runs on this node (the store said so): nothing ran, the task is
 *   still queued; keep the message and ask again once that one is done (`item.resource` names the resource).
 */
type RunOutcome = 'done' | 'skipped' | 'abandoned' | 'waiting';

const tail = (s: string) => (s.length > OUTPUT_TAIL_CHARS ? s.slice(-OUTPUT_TAIL_CHARS) : s);

/** The peer the store named for this task; a node it did not name is refused (no key to pin). */
function peerOf(peers: PeerHost[], nodeId: string): PeerHost {
  const p = peers.find((x) => x.nodeId === nodeId);
  if (!p) throw new Error(`the control plane named no host for node ${nodeId} in this task: refusing to connect to it`);
  return p;
}

/** Runs one task: start (idempotent by id) → job handler → finish (spooled, retried until it lands). */
export class TaskRunner {
  /** the running tasks' cancel switches */
  private readonly cancels = new Map<number, AbortController>();

  constructor(
    private readonly api: AgentClient,
    private readonly exec: Executor,
    private readonly spool: Spool,
    private readonly log: Logger,
    /** aborted when running work should give up (shutdown) */
    private readonly stopSignal: AbortSignal,
    /** aborted when the agent must quit now (hard stop): in-flight reports give up, the spool keeps them */
    private readonly hardSignal: AbortSignal,
    /** executors on other nodes' hosts (JobContext.peer), pinned to the host keys the store holds */
    private readonly peers?: (peer: PeerHost) => Executor,
  ) {}

  /** An operator cancelled the task (told by a heartbeat or a progress answer): stop it if it runs here. */
  cancel(taskId: number): boolean {
    const c = this.cancels.get(taskId);
    if (!c || c.signal.aborted) return false;
    this.log('warn', 'task cancelled by the control plane; stopping it', { taskId });
    c.abort();
    return true;
  }

  async run(item: WorkItem): Promise<RunOutcome> {
    const cancel = new AbortController();
    this.cancels.set(item.taskId, cancel);
    try {
      return await this.runTask(item, cancel);
    } finally {
      this.cancels.delete(item.taskId);
    }
  }

  private async runTask(item: WorkItem, cancel: AbortController): Promise<RunOutcome> {
    const { taskId } = item;
    let start: StartAnswer;
    try {
      // a task not started yet can be handed back on shutdown: stop retrying when stopping
      start = await this.api.start(taskId, { attempts: Infinity, signal: this.stopSignal });
    } catch (err) {
      if (err instanceof ApiError) {
        // 404: the task no longer exists; 403: not this node's — either way nothing to run, drop the message
        this.log('error', 'task refused by the control plane; dropping its message', { taskId, cause: err.message });
        return 'skipped';
      }
      return 'abandoned';
    }
    if (!start.run && start.waitFor) {
      this.log('info', 'task waits for a running task of its resource', { taskId, resource: start.waitFor.resource, waitsFor: start.waitFor.taskId });
      item.resource = start.waitFor.resource;
      return 'waiting';
    }
    if (!start.run || !start.work) {
      this.log('info', 'task not run: already handled', { taskId, reason: start.reason });
      return 'skipped';
    }
    const attempt = start.attempt;
    const { kind, payload, peers } = start.work;
    this.log('info', 'task started', { taskId, kind, resource: start.task.resource, attempt });
    const began = Date.now();
    let pendingOutput = '';
    if (start.task.cancelRequestedAt) cancel.abort();
    const ctx: JobContext = {
      exec: abortable(this.exec, cancel.signal),
      task: { id: taskId, kind, resource: start.task.resource, nodeId: start.task.nodeId, attempt },
      peer: this.peers ? (nodeId) => abortable(this.peers!(peerOf(peers, nodeId)), cancel.signal) : undefined,
      peers,
      signal: AbortSignal.any([this.hardSignal, cancel.signal]),
      cancelled: cancel.signal,
      progress: async (phase, percent, output) => {
        pendingOutput = tail(pendingOutput + (output ? (output.endsWith('\n') ? output : `${output}\n`) : ''));
        const body = {
          attempt,
          phase: phase.slice(0, 200),
          progress: Math.max(0, Math.min(100, Math.round(percent))),
          ...(pendingOutput ? { output: pendingOutput } : {}),
        };
        try {
          const view = await this.api.progress(taskId, body, { attempts: 3, baseMs: 200, maxMs: 1000, signal: this.hardSignal });
          pendingOutput = '';
          if (view.cancelRequestedAt) this.cancel(taskId);
        } catch (err) {
          // progress is best effort; undelivered output rides along with the next report
          this.log('warn', 'progress report failed', { taskId, cause: (err as Error).message });
        }
      },
    };

    let body: FinishReport;
    const handler = await handlerFor(kind);
    if (!handler) {
      body = { attempt, status: 'failed', error: `unknown task kind "${kind}": this agent has no handler for it (update the agent)` };
    } else {
      try {
        const result = await handler(ctx, payload as never);
        body = { attempt, status: 'success', ...(result === undefined ? {} : { result }) };
      } catch (err) {
        const e = err as Error;
        body = { attempt, status: 'failed', error: (e?.message || String(err)).slice(0, 65536) };
        if (err instanceof CommandError) pendingOutput = tail(pendingOutput + [err.result.stdout, err.result.stderr].filter(Boolean).join('\n'));
      }
    }
    // stopped on an operator's request (a job that finished before it noticed keeps its success)
    if (cancel.signal.aborted && body.status === 'failed') body = { ...body, status: 'cancelled', error: `cancelled: ${body.error}` };
    if (pendingOutput) body.output = pendingOutput;
    this.log(body.status === 'success' ? 'info' : 'warn', 'task ended', { taskId, status: body.status, error: body.error, ms: Date.now() - began });
    return (await this.finish(taskId, body)) ? 'done' : 'abandoned';
  }

  /**
   * Reports an outcome, spooled first so that it survives a restart; true when it landed (or was refused for
   * good), false when retrying stopped (by default: only on hard stop) and the spool keeps it for the next start.
   */
  async finish(
    taskId: number,
    body: FinishReport,
    retry: RetryPolicy = { attempts: Infinity, baseMs: 250, maxMs: 10_000, signal: this.hardSignal },
  ): Promise<boolean> {
    this.spool.put({ taskId, body });
    try {
      await this.api.finish(taskId, body, retry);
    } catch (err) {
      if (!(err instanceof ApiError)) {
        this.log('warn', 'task outcome kept for the next start', { taskId, cause: (err as Error).message });
        return false;
      }
      // e.g. 409 task_attempt_superseded: the control plane has moved on; keeping the report would not help
      this.log('error', 'task outcome refused', { taskId, cause: err.message });
    }
    this.spool.remove(taskId);
    return true;
  }

  /** At start: outcomes a previous run could not deliver. */
  async replaySpool(): Promise<number> {
    const pending = this.spool.list();
    for (const p of pending) await this.finish(p.taskId, p.body);
    if (pending.length) this.log('info', 'replayed undelivered task outcomes', { count: pending.length });
    return pending.length;
  }
}
