import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { natRouteSuggestionsSchema } from '#http/responses/network';

export const schema = {
  operation: 'E18',
  summary: 'Static return-route suggestions for a policy-routed SNAT or BINAT rule, next hops from the node’s routing table',
  role: 'viewer',
  method: 'GET',
  route: '/api/network/firewall/nat/{id}/route-suggestions',
  path: pathId('id'),
  responses: {
    200: 'nat_route_suggestions',
    404: 'nat_rule_not_found',
    409: 'nat_rule_not_eligible | routing_table_unavailable',
  },
  data: natRouteSuggestionsSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
