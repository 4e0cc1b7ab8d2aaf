import spec from '#spec/notifications/dismiss-all';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { dismissAllGlobal } from '#domain/notifications/notifications';

/** E24. */
export const handler = endpoint(spec, async (_input, { db }) => ok('notifications_dismissed', { dismissed: await dismissAllGlobal(db) }));
