import spec from '#spec/zfs/pool-replace-device';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { toTaskView } from '#shared/jobs/tasks';
import { planDeviceReplacement } from '#domain/pools/replace-device';
import type { Input } from './pool-replace-device.schema.ts';

/** E7: 202 with the task; the agent runs `zpool replace` and follows the resilver (agent/jobs/pool-replace-device.ts). */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptTask(ctx, {
    message: 'device_replacement_queued',
    plan: (trx) => planDeviceReplacement(trx, path.guid, body.old, body.new),
    data: (task) => toTaskView(task),
  }),
);
