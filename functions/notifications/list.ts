import spec from '#spec/notifications/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listActiveNotifications } from '#domain/notifications/notifications';
import type { Input } from './list.schema.ts';

export const handler = endpoint<Input>(spec, async ({ query }, { db }) => ok('notifications_listed', await listActiveNotifications(db, query)));
