import type { HostInventory } from '#domain/inventory';
import type { TaskRow, Db } from '#store/tables';
import type { TaskPayloads } from '#shared/agent-api/task-kinds';
import { cancelledBeforeStart, restorableUndo } from '#domain/task-undo';

/** What an E1 request replaced (the group's members), or that an E2 request marked the group deleted. */
export type GroupUndo = { members: string[] } | { deleted: false };

/**
 * What the store learns from a failed or cancelled group task (registered in shared/domain/task-outcomes.ts).
 *
 * Cancelled before it started: the request is as if never made — the members go back to what they were
 * (unless a newer E1 request replaced them since), a deleted group is a group again.
 *
 * Failed, or stopped by its agent: the agent undid its applied steps, so for that one group the host's last
 * report is the truth again. A refused delete brings the group back; refused members are replaced by the
 * reported ones. Other groups are left alone: a change accepted for them may still be on its way to the host.
 */
export async function applyGroupTaskOutcome(trx: Db, task: TaskRow): Promise<void> {
  if (!task.kind.startsWith('group.') || (task.status !== 'failed' && task.status !== 'cancelled')) return;
  const { group } = task.payload as TaskPayloads['group.delete' | 'group.set-members'];
  const named = trx.updateTable('host_groups').where('node_id', '=', task.node_id).where('name', '=', group);
  if (task.kind === 'group.delete') {
    await named.set({ deleted_at: null }).execute();
    return;
  }
  if (cancelledBeforeStart(task)) {
    const undo = await restorableUndo<GroupUndo>(trx, task);
    if (undo && 'members' in undo) await named.set({ members: JSON.stringify(undo.members), updated_at: new Date() }).execute();
    return;
  }
  const node = await trx.selectFrom('nodes').select('inventory').where('id', '=', task.node_id).executeTakeFirst();
  const reported = (node?.inventory as Partial<HostInventory> | undefined)?.groups?.find((g) => g.name === group);
  if (reported) await named.set({ members: JSON.stringify(reported.members), updated_at: new Date() }).execute();
}
