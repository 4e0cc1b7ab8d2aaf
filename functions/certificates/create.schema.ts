import type { EndpointInput, EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { CERTIFICATE_TYPES, certificateDomainSchema, certificateNameSchema } from '#domain/certificates/rules';

export const schema = {
  summary: 'Create a TLS certificate on a node (default: the primary node); a managed one queues its ACME issuance on the node’s agent',
  role: 'operator',
  method: 'POST',
  route: '/api/certificates',
  body: {
    type: 'object',
    properties: {
      name: certificateNameSchema,
      domain: certificateDomainSchema,
      type: { type: 'string', enum: CERTIFICATE_TYPES },
      staging: { type: 'boolean' },
      nodeId: nodeIdSchema,
    },
    required: ['name', 'domain', 'type'],
    additionalProperties: false,
  },
  responses: { 201: 'certificate_created', 400: 'validation_failed / certificate_type_unsupported', 404: 'cluster_node_not_found', 409: 'certificate_name_taken' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
