import { sql } from 'kysely';
import type { TaskRow, Db } from '#store/tables';
import { isTaskKind, taskKinds } from '#shared/agent-api/task-kinds';

/**
 * The payload fields of a task kind that carry secrets (shared/agent-api/task-kinds.ts): the agent needs them to do the
 * work, nobody needs them after the task ended. VNC passwords and cloud-init user data / meta-data (passwords,
 * SSH keys) stay in `tasks.payload` only while the task is queued or running.
 */
const secretFieldsOf = (kind: string): readonly string[] => (isTaskKind(kind) ? taskKinds[kind].secretFields : []);

const FINAL = ['success', 'failed', 'interrupted', 'cancelled'];

/** The payload without its secret fields (the kind's other fields unchanged). */
export function scrubPayload(kind: string, payload: unknown): unknown {
  const fields = secretFieldsOf(kind);
  if (!fields.length || !payload || typeof payload !== 'object') return payload;
  const out = { ...(payload as Record<string, unknown>) };
  for (const f of fields) delete out[f];
  return out;
}

/**
 * Removes the secrets from an ended task's stored payload; called wherever a task reaches a final state
 * (agent finish, interruption, sweeper failure). A task still queued or running keeps them.
 */
export async function scrubTaskSecrets(db: Db, task: Pick<TaskRow, 'id' | 'kind' | 'status'>): Promise<void> {
  if (!FINAL.includes(task.status)) return;
  const fields = secretFieldsOf(task.kind);
  const minus = fields.reduce((expr, f) => sql`${expr} - ${f}::text`, sql`payload`);
  // the values the request replaced (a previous cloud-init's user data) are needed only to cancel it
  await db
    .updateTable('tasks')
    .set({ payload: sql`${minus}`, undo: null })
    .where('id', '=', task.id)
    .where('status', 'in', FINAL as TaskRow['status'][])
    .execute();
}
