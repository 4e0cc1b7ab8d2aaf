import type { Db } from '#store/tables';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { restorableUndo } from '#domain/task-undo';
import { jailConfigOf, saveJailConfig } from './store.ts';
import type { JailConfig } from './types.ts';

/** What an E3 request (`hooks`) or an E4 request (`cores`, `cpuSet`) replaced in the jail's persisted config. */
export type JailUndo = Partial<Pick<JailConfig, 'hooks' | 'cores' | 'cpuSet'>>;

/**
 * A cancelled `jail.apply-hooks` / `jail.apply-limits` (registered in shared/domain/task-outcomes.ts): the
 * jail's persisted hooks or CPU limit go back to what they were before the request, so the re-application at
 * the next agent start does not apply the cancelled change after all.
 */
export async function applyJailTaskOutcome(trx: Db, task: TaskOf<'jail.apply-hooks'> | TaskOf<'jail.apply-limits'>): Promise<void> {
  const undo = await restorableUndo<JailUndo>(trx, task);
  if (!undo) return;
  const row = await trx
    .selectFrom('guests')
    .select(['id', 'config'])
    .where('id', '=', task.payload.ctid)
    .where('type', '=', 'jail')
    .where('node_id', '=', task.node_id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return;
  await saveJailConfig(trx, row.id, { ...jailConfigOf(row.config), ...undo });
}
