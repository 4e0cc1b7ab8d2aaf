/*
 * What a capability's re-apply source is and returns. Sources import this, the list of sources
 * (./reapply-sources.ts) imports the sources, and ./reapply.ts imports the list: one way, no cycle.
 */
import type { Db } from '#store/tables';
import type { TaskKind, TaskPayloads } from '#shared/agent-api/task-kinds';

/** One piece of persisted configuration to apply again on the host, as the job that applies it. */
export interface ReapplyItem<K extends TaskKind = TaskKind> {
  kind: K;
  resource: string;
  payload: TaskPayloads[K];
}

/** A capability's persisted host configuration for a node (tunables, jail hooks, CPU limits …). */
export type ReapplySource = (db: Db, nodeId: string) => Promise<ReapplyItem[]>;

/** Who re-application tasks are requested by, in task lists: they carry persisted configuration and change none. */
export const REAPPLY_REQUESTER = 'agent-start';
