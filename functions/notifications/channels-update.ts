import spec from '#spec/notifications/channels-update';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { updateChannels } from '#domain/notifications/channels';
import type { Input } from './channels-update.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, { db }) => ok('notification_channels_updated', await updateChannels(db, body)));
