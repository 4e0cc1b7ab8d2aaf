import type { Transaction } from 'kysely';
import { conflict, notFound } from '#shared/errors/domain-errors';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { normaliseUsernames, ROOT_GROUP } from './rules.ts';
import { primaryMembers, requireGroup, toGroupView } from './store.ts';
import type { GroupView } from './types.ts';
import type { GroupUndo } from './outcomes.ts';

/**
 * E1: replaces the group's supplementary members with `usernames` (trimmed, non-blank, unique), each an
 * existing user of the group's host (404 user_not_found naming the first unknown one). `root` stays in
 * `wheel`. A user whose primary group this is belongs to it through its group id, not through the member list:
 * adding one to the list is refused (409 primary_group_member naming the field) — once listed, the user could
 * never be told apart from a supplementary member — while one the host already lists may stay or be removed
 * (`pw groupmod -d` leaves the primary membership alone). Persists the list and queues `group.set-members` in
 * the caller's transaction; the agent runs `pw groupmod <g> -m/-d <user>` step by step and undoes the applied
 * steps when one fails.
 */
export async function setGroupMembers(trx: Transaction<Database>, enqueue: Enqueue, groupId: number, usernames: string[]): Promise<GroupView> {
  const group = await requireGroup(trx, groupId);
  const names = normaliseUsernames(usernames);
  if (names.length) {
    const known = new Set(
      (await trx.selectFrom('host_users').select('name').where('node_id', '=', group.node_id).where('name', 'in', names).execute()).map((u) => u.name),
    );
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length)
      throw notFound(
        'user_not_found',
        `user ${unknown[0]} does not exist on the host of group ${group.name}${unknown.length > 1 ? ` (nor ${unknown.slice(1).join(', ')})` : ''}`,
      );
  }
  if (group.name === ROOT_GROUP.group && !names.includes(ROOT_GROUP.user)) {
    throw conflict('root_must_stay_in_wheel', `user root cannot be removed from group wheel`);
  }
  const primary = new Set(await primaryMembers(trx, group.node_id, group.gid));
  const added = names.map((n, i) => ({ n, i })).filter(({ n }) => primary.has(n) && !group.members.includes(n));
  if (added.length) {
    throw conflict(
      'primary_group_member',
      added
        .map(
          ({ n, i }) =>
            `body.usernames[${i}]: group ${group.name} is the primary group of ${n}, who is a member through it and cannot be added to its member list`,
        )
        .join('; '),
    );
  }
  await trx
    .updateTable('host_groups')
    .set({ members: JSON.stringify(names), updated_at: new Date() })
    .where('id', '=', group.id)
    .execute();
  const undo: GroupUndo = { members: group.members };
  await enqueue({
    kind: 'group.set-members',
    nodeId: group.node_id,
    resource: resourceKey.group(group.id),
    payload: { group: group.name, members: names },
    undo,
  });
  return toGroupView(group);
}
