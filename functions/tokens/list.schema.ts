import type { EndpointSchema } from '#http/spec';
import { tokenSchema } from './responses.ts';

export const schema = {
  summary: 'Every API token: name, role, node, created, expires, last used, state — never a secret or its hash',
  role: 'admin',
  method: 'GET',
  route: '/api/tokens',
  responses: { 200: 'tokens_listed' },
  data: { type: 'array', items: tokenSchema },
} as const satisfies EndpointSchema;
