import type { EndpointSchema } from '#http/spec';
import { dismissedCountSchema } from './responses.ts';

export const schema = {
  operation: 'E24',
  summary: 'Dismiss every active global notification (no body)',
  role: 'operator',
  method: 'POST',
  route: '/api/notifications/dismiss-all',
  responses: { 200: 'notifications_dismissed' },
  data: dismissedCountSchema,
} as const satisfies EndpointSchema;
