import type { EndpointInput, EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { CERTIFICATE_TYPES, certificateDomainSchema, certificateNameSchema } from '#domain/certificates/rules';
import { createdCertificateSchema } from '#http/responses/certificate';

export const schema = {
  summary:
    'Create a TLS certificate on a node (default: the primary node): managed (ACME issuance), imported (given PEMs installed) or self-signed (made on the host), each by a task on the node’s agent',
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
      certificatePem: { type: 'string', minLength: 1, maxLength: 65536, description: 'imported: the certificate (PEM), optionally followed by its chain' },
      privateKeyPem: {
        type: 'string',
        minLength: 1,
        maxLength: 16384,
        writeOnly: true,
        description: 'imported: its unencrypted PEM private key; never stored or answered',
      },
    },
    required: ['name', 'type'],
    additionalProperties: false,
  },
  responses: {
    201: 'certificate_created',
    400: 'validation_failed / certificate_key_mismatch / certificate_expired / certificate_not_yet_valid / certificate_domain_mismatch',
    404: 'cluster_node_not_found',
    409: 'certificate_name_taken',
  },
  data: createdCertificateSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
