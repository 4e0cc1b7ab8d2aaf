import spec from '#spec/notifications/channels-list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listChannels } from '#domain/notifications/channels';

export const handler = endpoint(spec, async (_input, { db }) => ok('notification_channels_listed', await listChannels(db)));
