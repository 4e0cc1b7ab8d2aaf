import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { NOTIFICATION_SCOPES } from '#domain/notifications/notifications';
import { pageOf } from '#http/responses/page';
import { notificationSchema } from './responses.ts';

export const schema = {
  summary: 'Active (not dismissed) notifications, newest first; optionally of one scope or node',
  role: 'viewer',
  method: 'GET',
  route: '/api/notifications',
  query: {
    type: 'object',
    properties: { ...pageQuery, scope: { type: 'string', enum: NOTIFICATION_SCOPES }, nodeId: nodeIdSchema },
    additionalProperties: false,
  },
  responses: { 200: 'notifications_listed' },
  data: pageOf(notificationSchema),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
