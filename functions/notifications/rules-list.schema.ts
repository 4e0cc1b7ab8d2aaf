import type { EndpointSchema } from '#http/spec';
import { rulesAndTemplatesSchema } from './responses.ts';

export const schema = {
  summary: 'Notification rules (tombstones excluded) and templates with their targets',
  role: 'viewer',
  method: 'GET',
  route: '/api/notifications/rules',
  responses: { 200: 'notification_rules_listed' },
  data: rulesAndTemplatesSchema,
} as const satisfies EndpointSchema;
