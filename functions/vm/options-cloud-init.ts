import spec from '#spec/vm/options-cloud-init';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setCloudInit } from '#domain/vms/set-cloud-init';
import type { Input } from './options-cloud-init.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('vm_cloud_init_updated', await withTasks(ctx, (trx, enqueue) => setCloudInit(trx, enqueue, path.rid, body))),
);
