import spec from '#spec/vm/hardware-vnc';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setVnc } from '#domain/vms/set-vnc';
import type { Input } from './hardware-vnc.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('vm_vnc_updated', await withTasks(ctx, (trx, enqueue) => setVnc(trx, enqueue, path.rid, body))),
);
