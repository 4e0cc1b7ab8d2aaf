import { idSetBody, type EndpointInput, type EndpointSchema } from '#http/spec';
import { rulesAndTemplatesSchema } from './responses.ts';

export const schema = {
  operation: 'E23',
  summary: 'Delete exactly the given set of notification rules (tombstoned), then synchronise; answers {rules, templates}',
  role: 'operator',
  method: 'POST',
  route: '/api/notifications/rules/bulk-delete',
  body: idSetBody,
  responses: { 200: 'notification_rules_deleted', 404: 'notification_rule_not_found', 409: 'cluster_leadership_changed', 503: 'cluster_consensus_unavailable' },
  data: rulesAndTemplatesSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
