import spec from '#spec/vm/options-shutdown-wait-time';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setShutdownWaitTime } from '#domain/vms/set-shutdown-wait-time';
import type { Input } from './options-shutdown-wait-time.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('vm_shutdown_wait_time_updated', await withTasks(ctx, (trx, enqueue) => setShutdownWaitTime(trx, enqueue, path.rid, body.waitTime))),
);
