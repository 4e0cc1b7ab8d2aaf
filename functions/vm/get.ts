import spec from '#spec/vm/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { roleAllows } from '#shared/auth/roles';
import { getVmView } from '#domain/vms/view';
import type { Input } from './get.schema.ts';

// cloud-init user data and meta-data are read back by operators only; viewers see whether they are set
export const handler = endpoint<Input>(spec, async ({ path }, { db, principal }) =>
  ok('vm', await getVmView(db, path.rid, roleAllows(principal.role, 'operator'))),
);
