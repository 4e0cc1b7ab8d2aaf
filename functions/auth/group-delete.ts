import spec from '#spec/auth/group-delete';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { deleteGroup } from '#domain/groups/delete';
import type { Input } from './group-delete.schema.ts';

/** E2: 200 `{id, name}`; the agent runs `pw groupdel` (agent/jobs/group-delete.ts). */
export const handler = endpoint<Input>(spec, async ({ path }, ctx) =>
  ok('group_deleted', await withTasks(ctx, (trx, enqueue) => deleteGroup(trx, enqueue, path.groupId))),
);
