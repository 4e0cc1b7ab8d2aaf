import { id32, pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { OUTCOME_PATTERN, TIME_PATTERN } from '#domain/audit/list';
import { auditViewSchema } from '#http/responses/audit';
import { pageOf } from '#http/responses/page';

export const schema = {
  summary: 'The audit log, newest first: every mutation and every refused request (401, 403, 429), filtered by token, resource, route, outcome and time',
  role: 'admin',
  method: 'GET',
  route: '/api/audit',
  query: {
    type: 'object',
    properties: {
      tokenId: id32,
      resource: { type: 'string', minLength: 1, maxLength: 300 },
      route: { type: 'string', minLength: 1, maxLength: 300 },
      outcome: { type: 'string', pattern: OUTCOME_PATTERN },
      from: { type: 'string', pattern: TIME_PATTERN },
      to: { type: 'string', pattern: TIME_PATTERN },
      ...pageQuery,
    },
    additionalProperties: false,
  },
  responses: { 200: 'audit_listed' },
  data: pageOf(auditViewSchema, { total: { type: 'integer', minimum: 0 } }),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
