import spec from '#spec/vm/power';
import { endpoint } from '#http/endpoint';
import { acceptPower } from '#http/accept-power';
import { checkVmPower, planVmPower } from '#domain/vms/power';
import type { Input } from './power.schema.ts';

/** 202 with the task (agent/jobs/vm-power.ts drives virsh), or 200 when the VM is already so. */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptPower(ctx, 'vm_power_queued', path.rid, {
    precheck: (db) => checkVmPower(db, path.rid, body.action),
    plan: (trx) => planVmPower(trx, path.rid, body.action),
  }),
);
