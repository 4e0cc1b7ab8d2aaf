import spec from '#spec/auth/group-members';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setGroupMembers } from '#domain/groups/set-members';
import type { Input } from './group-members.schema.ts';

/** E1: 200 `{id, name}`; the agent applies the members with `pw groupmod` (agent/jobs/group-members.ts). */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('group_members_updated', await withTasks(ctx, (trx, enqueue) => setGroupMembers(trx, enqueue, path.groupId, body.usernames))),
);
