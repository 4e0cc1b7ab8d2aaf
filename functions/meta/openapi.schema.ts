import type { EndpointSchema } from '#http/spec';

export const schema = {
  summary: 'The OpenAPI document of this interface, generated from the schemas the validators use',
  role: 'viewer',
  method: 'GET',
  route: '/api/openapi.json',
  responses: { 200: 'openapi' },
} as const satisfies EndpointSchema;
