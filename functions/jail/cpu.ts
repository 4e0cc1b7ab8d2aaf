import spec from '#spec/jail/cpu';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { setCpuLimit } from '#domain/jails/set-cpu';
import type { Input } from './cpu.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  ok('jail_cpu_updated', await withTasks(ctx, (trx, enqueue) => setCpuLimit(trx, enqueue, path.ctid, body.cores))),
);
