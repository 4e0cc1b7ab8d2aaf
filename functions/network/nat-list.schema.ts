import type { EndpointInput, EndpointSchema } from '#http/spec';
import { natRuleSchema } from '#http/responses/network';

export const schema = {
  summary: 'Firewall NAT rules of every node, by id (the rules E18 derives route suggestions from)',
  role: 'viewer',
  method: 'GET',
  route: '/api/network/firewall/nat',
  responses: { 200: 'nat_rules_listed' },
  data: { type: 'array', items: natRuleSchema },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
