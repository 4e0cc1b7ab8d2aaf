import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { tokenSchema } from './responses.ts';

export const schema = {
  summary: 'Revoke an API token: requests with it answer 401 "token revoked" from then on (revocation is final)',
  role: 'admin',
  method: 'POST',
  route: '/api/tokens/{id}/revoke',
  path: pathId('id'),
  responses: { 200: 'token_revoked', 404: 'token_not_found', 409: 'token_already_revoked' },
  data: tokenSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
