import type { EndpointInput, EndpointSchema } from '#http/spec';
import { channelsSchema } from './responses.ts';

const text = (max = 500) => ({ type: ['string', 'null'], minLength: 1, maxLength: max }) as const;
const url = { type: ['string', 'null'], minLength: 8, maxLength: 2000 } as const;
const topic = { type: ['string', 'null'], minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' } as const;
const port = { type: ['integer', 'null'], minimum: 1, maximum: 65535 } as const;
const flag = { type: ['boolean', 'null'] } as const;

export const schema = {
  summary: 'Set delivery channel settings; a given field replaces the stored one, null clears it, an omitted one is kept (secrets are write-only)',
  role: 'operator',
  method: 'PATCH',
  route: '/api/notifications/channels',
  body: {
    type: 'object',
    properties: {
      email: {
        type: 'object',
        properties: { host: text(253), port, secure: flag, username: text(), password: text(), from: text(), to: text(1000) },
        minProperties: 1,
        additionalProperties: false,
      },
      ntfy: { type: 'object', properties: { server: url, topic, priority: text(10), token: text() }, minProperties: 1, additionalProperties: false },
      discord: { type: 'object', properties: { webhookUrl: url }, minProperties: 1, additionalProperties: false },
      pushover: { type: 'object', properties: { apiUrl: url, userKey: text(100), appToken: text(100) }, minProperties: 1, additionalProperties: false },
      webhook: { type: 'object', properties: { url, secret: text(500) }, minProperties: 1, additionalProperties: false },
    },
    minProperties: 1,
    additionalProperties: false,
  },
  responses: { 200: 'notification_channels_updated', 400: 'invalid_url' },
  data: channelsSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
