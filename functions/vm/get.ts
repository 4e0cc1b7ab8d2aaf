import spec from '#spec/vm/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { getVmView } from '#domain/vms/view';
import type { Input } from './get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('vm', await getVmView(db, path.rid)));
