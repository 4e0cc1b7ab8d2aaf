import spec from '#spec/notifications/dismiss';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { dismissNotification } from '#domain/notifications/dismiss';
import type { Input } from './dismiss.schema.ts';

/** POST /api/notifications/{id}/dismiss. */
export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('notification_dismissed', await dismissNotification(db, path.id)));
