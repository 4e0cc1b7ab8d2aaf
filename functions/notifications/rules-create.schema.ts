import type { EndpointInput, EndpointSchema } from '#http/spec';
import { ruleFields } from './rule-fields.ts';
import { ruleSchema } from './responses.ts';

export const schema = {
  summary: 'Create a custom notification rule: an event (template) plus optional target, task kind and node; its channels and overrides',
  role: 'operator',
  method: 'POST',
  route: '/api/notifications/rules',
  body: {
    type: 'object',
    properties: { templateKey: { type: 'string', minLength: 1, maxLength: 100 }, ...ruleFields },
    required: ['templateKey'],
    additionalProperties: false,
  },
  responses: { 201: 'notification_rule_created', 400: 'notification_template_unknown | notification_node_unknown' },
  data: ruleSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
