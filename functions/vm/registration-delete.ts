import spec from '#spec/vm/registration-delete';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { purgeRegistration } from '#domain/vms/purge';
import type { Input } from './registration-delete.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, query }, ctx) =>
  ok('vm_registration_purged', await withTasks(ctx, (trx, enqueue) => purgeRegistration(trx, enqueue, path.rid, query.deletemacs ?? true))),
);
