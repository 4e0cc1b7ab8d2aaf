import spec from '#spec/notifications/count';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { countActive } from '#domain/notifications/counts';

export const handler = endpoint(spec, async (_input, { db }) => ok('notifications_counted', { active: await countActive(db) }));
