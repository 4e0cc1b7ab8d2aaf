import spec from '#spec/system/tunables-set';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setTunable } from '#domain/tunables/settings';
import type { Input } from './tunables-set.schema.ts';

/** E11: 200 with the persisted setting; the agent applies it with `sysctl name=value` (agent/jobs/tunable-apply.ts). */
export const handler = endpoint<Input>(spec, async ({ query, body }, ctx) =>
  ok(
    'tunable_set',
    await withTasks(ctx, (trx, enqueue) => setTunable(trx, enqueue, { nodeId: query.nodeId, name: body.name, value: body.value }, ctx.principal.name)),
  ),
);
