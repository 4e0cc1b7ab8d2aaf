/**
 * The queue message between functions (producers) and the agent (consumer). Queue: one SQS FIFO queue per node;
 * MessageGroupId = the resource's group (serial per resource), MessageDeduplicationId = task id; DLQ after 5
 * receives. Body = QueueMessage as JSON.
 *
 * A queue message is a pointer, never an order: only the task id. Anyone who can send to a node's queue
 * can only make its agent ask the store (`start`) about a task of that node; what runs is the task row the
 * store returns. It also keeps user strings out of SQS, which refuses some characters (U+FFFE, U+FFFF, …).
 */
export interface QueueMessage {
  taskId: number;
}

/** The task id of a message body, or null when the body is not a task pointer (other fields are ignored). */
export function parseQueueMessage(body: string): QueueMessage | null {
  try {
    const m = JSON.parse(body) as { taskId?: unknown } | null;
    return m && typeof m === 'object' && Number.isSafeInteger(m.taskId) && (m.taskId as number) > 0 ? { taskId: m.taskId as number } : null;
  } catch {
    return null;
  }
}
