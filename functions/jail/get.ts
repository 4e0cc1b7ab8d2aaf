import spec from '#spec/jail/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { jailView } from '#domain/jails/view';
import { requireJail } from '#domain/jails/store';
import { jailMove } from '#domain/jails/moving';
import type { Input } from './get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('jail', jailView(await requireJail(db, path.ctid), await jailMove(db, path.ctid))));
