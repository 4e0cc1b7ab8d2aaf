import type { Db } from '#store/tables';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { restorableUndo } from '#domain/task-undo';

/** What an E11 request replaced: the node's persisted setting of the tunable, or none (dates as ISO strings). */
export interface TunableUndo {
  setting: {
    node_id: string;
    name: string;
    value: string;
    type: string;
    previous_value: string;
    task_id: number | null;
    requested_by: string;
    created_at: string;
    updated_at: string;
  } | null;
}

/**
 * A cancelled `tunable.apply` (registered in shared/domain/task-outcomes.ts): the persisted setting is put
 * back as it was before the request — or removed when there was none — so the re-application at the next
 * agent start does not apply the cancelled value after all.
 */
export async function applyTunableTaskOutcome(trx: Db, task: TaskOf<'tunable.apply'>): Promise<void> {
  const undo = await restorableUndo<TunableUndo>(trx, task);
  if (!undo) return;
  const { name } = task.payload;
  if (!undo.setting) {
    await trx.deleteFrom('tunable_settings').where('node_id', '=', task.node_id).where('name', '=', name).execute();
    return;
  }
  const { node_id: _node, name: _name, created_at: _created, ...fields } = undo.setting;
  await trx
    .updateTable('tunable_settings')
    .set({ ...fields, updated_at: new Date(fields.updated_at) })
    .where('node_id', '=', task.node_id)
    .where('name', '=', name)
    .execute();
}
