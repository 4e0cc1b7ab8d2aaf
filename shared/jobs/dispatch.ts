import type { Kysely } from 'kysely';
import { log } from '#shared/log/logger';
import { sql } from 'kysely';
import { getDb } from '#store/db';
import type { Database, TaskRow } from '#store/tables';
import { forgetNodeQueue, nodeQueueUrl } from '#shared/queue/node-queue';
import { getSqs, loadSqs } from '#shared/queue/client';
import { messageGroupId } from '#shared/queue/group-id';
import type { QueueMessage } from '#shared/agent-api/queue-message';

type Dispatchable = Pick<TaskRow, 'id' | 'kind' | 'node_id' | 'resource' | 'payload' | 'status' | 'dispatch_count'> & Partial<Pick<TaskRow, 'dispatched_at'>>;

/**
 * The first send of a task uses the task id as deduplication id; a re-send by the sweeper must
 * not be swallowed by SQS's 5-minute deduplication window, so it carries the send's number.
 */
export const deduplicationId = (taskId: number, sends: number) => (sends === 0 ? String(taskId) : `${taskId}.${sends}`);

/**
 * Sends the task's message to its node's FIFO queue and records the send — every attempt, failed ones too,
 * so that the sweeper's bound holds for a task SQS keeps refusing. Throws when the queue refuses.
 */
export async function sendTask(task: Dispatchable, db: Kysely<Database> = getDb()): Promise<void> {
  // a pointer only: the agent gets kind and payload from the store when it starts the task
  const message: QueueMessage = { taskId: task.id };
  const { SendMessageCommand } = await loadSqs();
  const sqs = await getSqs();
  const send = async () =>
    sqs.send(
      new SendMessageCommand({
        QueueUrl: await nodeQueueUrl(task.node_id),
        MessageBody: JSON.stringify(message),
        // serial per resource: SQS delivers a group's messages one at a time, in order
        MessageGroupId: messageGroupId(task.resource),
        MessageDeduplicationId: deduplicationId(task.id, task.dispatch_count),
      }),
    );
  try {
    try {
      await send();
    } catch (err) {
      // a cached URL of a queue that no longer exists (e.g. a restarted emulator): look it up once more
      if ((err as { name?: string }).name !== 'QueueDoesNotExist' && !/does not exist/i.test((err as Error).message)) throw err;
      forgetNodeQueue(task.node_id);
      await send();
    }
  } catch (err) {
    const cause = `${(err as { name?: string }).name ?? 'Error'}: ${(err as Error).message}`.slice(0, 1000);
    await db.updateTable('tasks').set({ send_attempts: sql<number>`send_attempts + 1`, send_error: cause }).where('id', '=', task.id).execute();
    throw err;
  }
  await db
    .updateTable('tasks')
    .set({ dispatched_at: sql<Date>`now()`, dispatch_count: sql<number>`dispatch_count + 1`, send_attempts: sql<number>`send_attempts + 1`, send_error: '' })
    .where('id', '=', task.id)
    .execute();
}

/**
 * Called after the creating transaction commits. Never throws: a failed send is logged and the task stays
 * `queued` without a send, which the sweeper re-sends (shared/jobs/sweeper.ts) — the request has already
 * succeeded and must say so.
 */
export async function dispatchTask(task: Dispatchable, db: Kysely<Database> = getDb()): Promise<boolean> {
  // a repeated Idempotency-Key returns a task that was already sent (or has already run)
  if (task.status !== 'queued' || task.dispatched_at) return false;
  try {
    await sendTask(task, db);
    return true;
  } catch (err) {
    log.warn('task dispatch failed; the sweeper will re-send it', { taskId: task.id, nodeId: task.node_id, cause: (err as Error).message });
    return false;
  }
}
