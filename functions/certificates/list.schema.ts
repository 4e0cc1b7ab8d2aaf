import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { certificateSchema } from '#http/responses/certificate';
import { pageOf } from '#http/responses/page';

export const schema = {
  summary: 'TLS certificates (managed over ACME, imported, self-signed) with the state of their issuance; one node’s with ?nodeId=',
  role: 'viewer',
  method: 'GET',
  route: '/api/certificates',
  query: { type: 'object', properties: { nodeId: nodeIdSchema, ...pageQuery }, additionalProperties: false },
  responses: { 200: 'certificates_listed', 400: 'validation_failed' },
  data: pageOf(certificateSchema, { total: { type: 'integer', minimum: 0 } }),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
