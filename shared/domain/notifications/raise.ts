import type { TaskRow, Db } from '#store/tables';
import { queueDeliveries } from './outbox.ts';

/** What a notification says and what it is about; rules match `kind`, `nodeId` and `subject`. */
export interface RaisedNotification {
  /** e.g. `task_failed`, `certificate_failed`, `backup_failed`, `node_offline` */
  kind: string;
  title: string;
  body: string;
  severity: 'info' | 'warning' | 'error';
  /** `global` ones are what E24 dismisses; `node` ones concern one node */
  scope: 'global' | 'node';
  nodeId: string | null;
  /** the object it is about, for rules and messages: a task (id, kind, status), a certificate, a backup job … */
  subject?: { type: string; id: number | string; kind?: string; status?: string };
  /** the notification target it concerns (a backup job's key, a certificate's name); default: the subject's id */
  targetKey?: string;
}

/**
 * Raises a notification inside the caller's transaction: the one way every capability raises one, so delivery
 * (the outbox: one row per matching rule and enabled channel, see outbox.ts) is written with it
 * or not at all.
 */
export async function raiseNotification(trx: Db, n: RaisedNotification): Promise<void> {
  await trx
    .insertInto('notifications')
    .values({ kind: n.kind, title: n.title, body: n.body, severity: n.severity, scope: n.scope, node_id: n.nodeId })
    .execute();
  await queueDeliveries(trx, {
    type: n.kind,
    title: n.title,
    body: n.body,
    severity: n.severity,
    nodeId: n.nodeId,
    targetKey: n.targetKey,
    subject: n.subject,
  });
}

/**
 * A task that ends `failed` (or is cut off, `interrupted`) raises a global notification, counted by E25 and
 * dismissed by E24: the operator who queued the work may long be gone when it fails.
 */
export async function notifyTaskEnded(trx: Db, task: Pick<TaskRow, 'id' | 'kind' | 'node_id' | 'resource' | 'status' | 'error'>): Promise<void> {
  await queueTaskEvent(trx, task);
  if (task.status !== 'failed' && task.status !== 'interrupted') return;
  await raiseNotification(trx, {
    kind: task.status === 'failed' ? 'task_failed' : 'task_interrupted',
    title: `Task ${task.id} (${task.kind} on ${task.resource}) ${task.status}`,
    body: task.error,
    severity: task.status === 'failed' ? 'error' : 'warning',
    scope: 'global',
    nodeId: task.node_id,
    subject: { type: 'task', id: task.id, kind: task.kind, status: task.status },
  });
}

/**
 * Task events for delivery rules (`task.failed` for failed or interrupted, `task.succeeded`), matched by task
 * kind and node: outbox only, never the UI's notifications list, so a rule on every success floods nothing.
 */
async function queueTaskEvent(trx: Db, task: Pick<TaskRow, 'id' | 'kind' | 'node_id' | 'resource' | 'status' | 'error'>): Promise<void> {
  const type = task.status === 'success' ? 'task.succeeded' : task.status === 'failed' || task.status === 'interrupted' ? 'task.failed' : null;
  if (!type) return;
  await queueDeliveries(trx, {
    type,
    title: `Task ${task.id} (${task.kind} on ${task.resource}) ${task.status} on node ${task.node_id}`,
    body: task.status === 'success' ? `Task ${task.id} (${task.kind}) succeeded on node ${task.node_id}.` : `Error: ${task.error}`,
    severity: task.status === 'success' ? 'info' : 'error',
    nodeId: task.node_id,
    subject: { type: 'task', id: task.id, kind: task.kind, status: task.status },
  });
}
