import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { ruleFields } from './rule-fields.ts';
import { ruleSchema } from './responses.ts';

export const schema = {
  summary: "Update a notification rule's target, filters, channels and overrides (given fields only)",
  role: 'operator',
  method: 'PATCH',
  route: '/api/notifications/rules/{id}',
  path: pathId('id'),
  body: { type: 'object', properties: ruleFields, minProperties: 1, additionalProperties: false },
  responses: { 200: 'notification_rule_updated', 400: 'notification_node_unknown', 404: 'notification_rule_not_found' },
  data: ruleSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
