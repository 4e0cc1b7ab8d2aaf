import spec from '#spec/vm/options-qemu-guest-agent';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setGuestAgent } from '#domain/vms/set-guest-agent';
import type { Input } from './options-qemu-guest-agent.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('vm_guest_agent_updated', await withTasks(ctx, (trx, enqueue) => setGuestAgent(trx, enqueue, path.rid, body.enabled))),
);
