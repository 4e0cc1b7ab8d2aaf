import type { Transaction } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { PROTECTED_GROUPS } from './rules.ts';
import { primaryMembers, requireGroup, toGroupView } from './store.ts';
import type { GroupView } from './types.ts';
import type { GroupUndo } from './outcomes.ts';

/**
 * E2: deletes a managed group that is neither protected (`wheel`, the service's own group) nor a user's
 * primary group — each refused with 409 naming the reason. The group is marked deleted (a second delete is
 * 404) and `group.delete` (`pw groupdel`) is queued in the caller's transaction; a failed task unmarks it.
 */
export async function deleteGroup(trx: Transaction<Database>, enqueue: Enqueue, groupId: number): Promise<GroupView> {
  const group = await requireGroup(trx, groupId);
  if (PROTECTED_GROUPS.has(group.name)) throw conflict('group_protected', `group ${group.name} is protected and cannot be deleted`);
  const users = await primaryMembers(trx, group.node_id, group.gid);
  if (users.length) throw conflict('group_referenced', `group ${group.name} is the primary group of ${users.join(', ')} and cannot be deleted`);
  await trx.updateTable('host_groups').set({ deleted_at: new Date(), updated_at: new Date() }).where('id', '=', group.id).execute();
  const undo: GroupUndo = { deleted: false };
  await enqueue({ kind: 'group.delete', nodeId: group.node_id, resource: resourceKey.group(group.id), payload: { group: group.name }, undo });
  return toGroupView(group);
}
