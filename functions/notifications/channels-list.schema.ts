import type { EndpointSchema } from '#http/spec';
import { channelsSchema } from './responses.ts';

export const schema = {
  summary: 'Delivery channel settings (email, ntfy, discord, pushover, webhook); secrets show as "set" or null',
  role: 'operator',
  method: 'GET',
  route: '/api/notifications/channels',
  responses: { 200: 'notification_channels_listed' },
  data: channelsSchema,
} as const satisfies EndpointSchema;
