import type { EndpointSchema } from '#http/spec';
import { activeCountSchema } from './responses.ts';

export const schema = {
  operation: 'E25',
  summary: 'Number of notifications not yet dismissed',
  role: 'viewer',
  method: 'GET',
  route: '/api/notifications/count',
  responses: { 200: 'notifications_counted' },
  data: activeCountSchema,
} as const satisfies EndpointSchema;
