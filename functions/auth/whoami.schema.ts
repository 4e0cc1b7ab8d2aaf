import type { EndpointSchema } from '#http/spec';
import { ROLES } from '#shared/auth/roles';

export const schema = {
  summary: 'The caller: its token name and role (what a client such as the web console shows and which actions it offers)',
  role: 'viewer',
  method: 'GET',
  route: '/api/auth/whoami',
  responses: { 200: 'whoami' },
  data: {
    type: 'object',
    properties: { name: { type: 'string' }, role: { type: 'string', enum: ROLES } },
    required: ['name', 'role'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;
