import spec from '#spec/snapshots/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { guestStorage } from '#domain/snapshots/guest-snapshots';
import type { Input } from './list.schema.ts';

/** GET: from the guest's node's last inventory (refreshed after every task, so after each snapshot operation). */
export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('snapshots_listed', await guestStorage(db, path.guestType, path.guestId)));
