/**
 * The job protocol shared by functions (producers) and the agent (consumer), DESIGN §6.
 *
 * Queue: one SQS FIFO queue per node; MessageGroupId = resource key (serial per resource),
 * MessageDeduplicationId = task id; DLQ after 5 receives. Body = QueueMessage as JSON.
 */
export type TaskStatus = 'queued' | 'running' | 'success' | 'failed' | 'interrupted';
export const ACTIVE_STATUSES: TaskStatus[] = ['queued', 'running'];
export const FINAL_STATUSES: TaskStatus[] = ['success', 'failed', 'interrupted'];

/**
 * Every kind of host work and its payload. Each capability adds its kinds here; the agent's job registry
 * (agent/jobs/registry.ts) must have a handler for each.
 */
export interface TaskPayloads {
  /** E7 */
  'pool.replace-device': { pool: string; guid: string; old: string; new: string };
  /** E11, and re-application at agent start */
  'tunable.apply': { name: string; value: string };
}
export type TaskKind = keyof TaskPayloads;

export interface QueueMessage<K extends TaskKind = TaskKind> {
  taskId: number;
  kind: K;
  payload: TaskPayloads[K];
}

/** Resource keys (DESIGN §6): `jail:101`, `vm:7`, `pool:<guid>`, `tunable:<name>`. */
export const resourceKey = {
  pool: (guid: string) => `pool:${guid}`,
  jail: (ctid: number) => `jail:${ctid}`,
  vm: (rid: number) => `vm:${rid}`,
  tunable: (name: string) => `tunable:${name}`,
};
