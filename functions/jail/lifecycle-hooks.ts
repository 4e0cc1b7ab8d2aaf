import spec from '#spec/jail/lifecycle-hooks';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setLifecycleHooks } from '#domain/jails/set-hooks';
import type { Input } from './lifecycle-hooks.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('jail_hooks_updated', await withTasks(ctx, (trx, enqueue) => setLifecycleHooks(trx, enqueue, path.ctid, body.hooks))),
);
