import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { certificateSchema } from '#http/responses/certificate';

export const schema = {
  summary: 'One TLS certificate: the Managed TLS certificate record',
  role: 'viewer',
  method: 'GET',
  route: '/api/certificates/{id}',
  path: pathId('id'),
  responses: { 200: 'certificate_found', 400: 'validation_failed', 404: 'certificate_not_found' },
  data: certificateSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
