import { sql } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';
import type { Db } from '#store/tables';
import { activeExclusiveTask } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';

/**
 * 409 (`jail_busy` / `vm_busy`) while a backup restore (E15) of this guest is queued or running: the restore stops
 * the guest for the dataset swap and starts it again if it ran, so a power action in between would race it. The
 * restore's task is keyed on its backup job, so its payload names the guest.
 */
export async function requireNoRestoreOf(db: Db, type: 'jail' | 'vm', id: number): Promise<void> {
  const t = await db
    .selectFrom('tasks')
    .select(['id', 'status'])
    .where('kind', '=', 'backup.restore')
    .where('status', 'in', ACTIVE_STATUSES)
    .where(sql<boolean>`payload->'guest'->>'type' = ${type} AND payload->'guest'->>'id' = ${String(id)}`)
    .orderBy('id')
    .executeTakeFirst();
  if (t) throw conflict(`${type}_busy`, `${type} ${id} is busy: task ${t.id} (backup.restore) is ${t.status}; it stops and starts the guest itself`);
}

/**
 * The reverse: E15's 409 (`restore_conflict`) while a task that holds the guest alone — a power action, a
 * migration, a snapshot rollback — is queued or running: the restore would stop and swap the guest under it.
 * The guest's row is locked first, as a VM power request locks it, so the two plans of one guest take turns.
 */
export async function requireGuestIdleForRestore(trx: Db, type: 'jail' | 'vm', id: number): Promise<void> {
  await trx.selectFrom('guests').select('id').where('id', '=', id).where('type', '=', type).forUpdate().executeTakeFirst();
  const t = await activeExclusiveTask(trx, resourceKey.guest(type, id));
  if (t) throw conflict('restore_conflict', `${type} ${id} is busy: task ${t.id} (${t.kind}) is ${t.status}; restore it once that task has ended`);
}
