import type { HostInventory } from '#domain/inventory';
import type { TaskRow, Db } from '#store/tables';
import type { TaskPayloads } from '#shared/jobs/protocol';
import { projectGroups } from './projection.ts';

/**
 * What the store learns from a failed group task (registered in shared/domain/task-outcomes.ts): the agent
 * undid its applied steps, so the host's last report is the truth again. A refused delete brings the group
 * back; refused members are replaced by the reported ones. (A success shows in the next inventory report.)
 */
export async function applyGroupTaskOutcome(trx: Db, task: TaskRow): Promise<void> {
  if (!task.kind.startsWith('group.') || task.status !== 'failed') return;
  if (task.kind === 'group.delete') {
    const { group } = task.payload as TaskPayloads['group.delete'];
    await trx.updateTable('host_groups').set({ deleted_at: null }).where('node_id', '=', task.node_id).where('name', '=', group).execute();
    return;
  }
  const node = await trx.selectFrom('nodes').select('inventory').where('id', '=', task.node_id).executeTakeFirst();
  const inventory = node?.inventory as Partial<HostInventory> | undefined;
  await projectGroups(trx, task.node_id, undefined, inventory?.groups);
}
