import type { FromSchema } from 'json-schema-to-ts';
import { certificateDomainSchema, certificateNameSchema } from '../domain/certificates/rules.ts';
import { NODE_ID_PATTERN } from './node-id.ts';

/**
 * The seed's `certificates` section: managed TLS certificates per node, upserted by (nodeId, name) by
 * ./certificates.ts. A `ready` one's record (fingerprint, validity) is read from the certificate file the
 * node's simulated host holds (`hosts[nodeId].files["/usr/local/etc/ssl/hostmgr/<name>.crt"]`), so the store
 * and the host agree; a `failed` one is a failed initial issuance with its ACME problem detail (E22 retries it).
 */
export const certificatesSeedSchema = {
  description: 'managed TLS certificates per node, upserted by (nodeId, name); a ready one must have its .crt on the node’s simulated host',
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['nodeId', 'name', 'domain', 'issuanceStatus'],
    properties: {
      nodeId: { type: 'string', pattern: NODE_ID_PATTERN },
      name: certificateNameSchema,
      domain: certificateDomainSchema,
      staging: { type: 'boolean', default: false },
      issuanceStatus: { type: 'string', enum: ['ready', 'failed'] },
      issuanceError: { type: 'string', maxLength: 4000, default: '', description: 'for a failed issuance: the ACME problem detail' },
    },
  },
} as const;

export type CertificatesSeed = FromSchema<typeof certificatesSeedSchema>;
