import type { EndpointInput, EndpointSchema } from '#http/spec';
import { ROLES } from '#shared/auth/roles';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { TIME_PATTERN } from '#domain/audit/list';
import { createdTokenSchema } from './responses.ts';

export const schema = {
  summary: 'Create an API token with a role, a name and an optional expiry; its secret is in this answer only',
  role: 'admin',
  method: 'POST',
  route: '/api/tokens',
  body: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'who or what uses it' },
      role: {
        type: 'string',
        enum: ROLES,
        description:
          'viewer: reads; operator: + guest, storage, network, notification, backup and note changes; admin: everything; agent: /api/agent/* for one node',
      },
      expiresAt: {
        type: ['string', 'null'],
        pattern: TIME_PATTERN,
        description: 'when it stops working, an ISO date-time in the future (2026-01-31T12:00:00Z); absent or null: never',
      },
      nodeId: { ...nodeIdSchema, description: 'agent tokens only (required there): the node the agent speaks for' },
    },
    required: ['name', 'role'],
    additionalProperties: false,
  },
  responses: { 201: 'token_created', 400: 'validation_failed' },
  data: createdTokenSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
