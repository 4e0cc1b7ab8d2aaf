import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { certificateSchema } from '#http/responses/certificate';

export const schema = {
  operation: 'E22',
  summary: 'Start a new issuance attempt for a managed certificate whose initial ACME issuance failed',
  role: 'operator',
  method: 'POST',
  route: '/api/certificates/{id}/retry',
  path: pathId('id'),
  responses: {
    202: 'certificate_issuance_queued',
    400: 'validation_failed',
    404: 'certificate_not_found',
    409: 'certificate_not_managed / certificate_already_issued / certificate_issuance_active',
    502: 'acme_unreachable',
  },
  data: certificateSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
