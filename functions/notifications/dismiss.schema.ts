import type { EndpointInput, EndpointSchema } from '#http/spec';
import { pathId } from '#http/spec';

export const schema = {
  summary: 'Dismiss one notification, global or node-scoped (no body); dismissing a dismissed one keeps its first time',
  role: 'operator',
  method: 'POST',
  route: '/api/notifications/{id}/dismiss',
  path: pathId('id'),
  responses: { 200: 'notification_dismissed', 400: 'validation_failed', 404: 'notification_not_found' },
  data: {
    type: 'object',
    properties: { id: { type: 'integer', minimum: 1 }, dismissedAt: { type: 'string', format: 'date-time' } },
    required: ['id', 'dismissedAt'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
