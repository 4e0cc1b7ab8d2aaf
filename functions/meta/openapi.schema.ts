import type { EndpointSchema } from '#http/spec';

export const schema = {
  summary: 'The OpenAPI document of this interface, generated from the schemas the validators use',
  role: 'viewer',
  method: 'GET',
  route: '/api/openapi.json',
  responses: { 200: 'openapi' },
  /** the document itself (OpenAPI 3.1): its own schema is the OpenAPI specification's, so only its frame is checked */
  data: {
    type: 'object',
    properties: {
      openapi: { type: 'string', pattern: '^3\\.1\\.' },
      info: { type: 'object', required: ['title', 'version'] },
      paths: { type: 'object', minProperties: 1 },
      components: { type: 'object' },
    },
    required: ['openapi', 'info', 'paths', 'components'],
  },
} as const satisfies EndpointSchema;
