import type { TaskKind, TaskPayloads } from './task-kinds.ts';
import type { TaskStatus } from './task-status.ts';

/**
 * A task as the API shows it (GET /api/tasks/{id}, and the agent's start, progress and finish answers). The payload
 * stays internal: it can carry secrets (VNC passwords, keys).
 */
export interface TaskView {
  id: number;
  kind: string;
  nodeId: string;
  resource: string;
  status: TaskStatus;
  phase: string;
  progress: number;
  output: string;
  error: string;
  result: unknown;
  requestedBy: string;
  exclusive: boolean;
  attempts: number;
  /** a running task whose cancellation was asked for: its agent is stopping it */
  cancelRequestedAt: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

/** Another node's host a task may connect to, with the SSH host keys the control plane holds for it. */
export interface PeerHost {
  nodeId: string;
  /** the address the node registered */
  address: string;
  /** `SHA256:…` fingerprints the node reported at registration; a host presenting another key is refused */
  hostKeys: string[];
  /** an SSH endpoint outside the cluster (a backup target): its login and port, instead of the agent's peer settings */
  user?: string;
  port?: number;
}

/** What the agent runs: the task row's kind and payload, never anything from the queue message. */
export interface Work<K extends TaskKind = TaskKind> {
  kind: K;
  payload: TaskPayloads[K];
  /** the hosts the task may reach over SSH (E20: the target) */
  peers: PeerHost[];
}

/**
 * The answer of POST /api/agent/tasks/{id}/start — the one contract between the store and the agent about
 * what to run. `run: false`: already started or finished, or superseded; ack the message and run nothing —
 * unless `waitFor` is set: the task stays queued behind a running task of its resource on the node, and the
 * agent asks again once that one is done (keeping the message).
 */
export interface StartAnswer {
  run: boolean;
  reason: string;
  attempt: number;
  task: TaskView;
  /** present when `run` */
  work?: Work;
  /** present when the task must wait: the running task of the same resource it waits for */
  waitFor?: { taskId: number; resource: string };
}
