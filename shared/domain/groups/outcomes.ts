import type { HostInventory } from '#domain/inventory';
import type { Db } from '#store/tables';
import type { KindOutcome } from '#shared/jobs/lifecycle';
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
 * One outcome per kind, each seeing only tasks of its kind.
 */

/** The one group a task was about, on its node. */
const groupRow = (trx: Db, nodeId: string, group: string) => trx.updateTable('host_groups').where('node_id', '=', nodeId).where('name', '=', group);

/** A failed or cancelled E2 delete: the group is a group again (the host still has it, or will report it). */
export const applyGroupDeleteOutcome: KindOutcome<'group.delete'> = async (trx: Db, task) => {
  if (task.status !== 'failed' && task.status !== 'cancelled') return;
  await groupRow(trx, task.node_id, task.payload.group).set({ deleted_at: null }).execute();
};

/** A failed or cancelled E1 members change: the members as they were, or as the host last reported them. */
export const applyGroupMembersOutcome: KindOutcome<'group.set-members'> = async (trx: Db, task) => {
  if (task.status !== 'failed' && task.status !== 'cancelled') return;
  const { group } = task.payload;
  const named = groupRow(trx, task.node_id, group);
  if (cancelledBeforeStart(task)) {
    const undo = await restorableUndo<GroupUndo>(trx, task);
    if (undo && 'members' in undo) await named.set({ members: JSON.stringify(undo.members), updated_at: new Date() }).execute();
    return;
  }
  const node = await trx.selectFrom('nodes').select('inventory').where('id', '=', task.node_id).executeTakeFirst();
  const reported = (node?.inventory as Partial<HostInventory> | undefined)?.groups?.find((g) => g.name === group);
  if (reported) await named.set({ members: JSON.stringify(reported.members), updated_at: new Date() }).execute();
};
