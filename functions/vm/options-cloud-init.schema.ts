import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { cloudInitSetSchema } from './responses.ts';

// each part is a cloud-init NoCloud file; 256 KiB each keeps the seed ISO small
const part = { type: 'string', maxLength: 262144 } as const;

export const schema = {
  operation: 'E17',
  summary: 'Replace or clear (all three empty) the cloud-init user data, metadata and network configuration of a shut-off VM',
  role: 'operator',
  method: 'PUT',
  route: '/api/vm/{rid}/options/cloud-init',
  path: pathId('rid'),
  body: {
    type: 'object',
    properties: { data: part, metadata: part, networkConfig: part },
    required: ['data', 'metadata', 'networkConfig'],
    additionalProperties: false,
  },
  responses: { 200: 'vm_cloud_init_updated', 400: 'validation_failed', 404: 'vm_not_found', 409: 'vm_not_shut_off / vm_orphaned', 503: 'node_offline' },
  data: cloudInitSetSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
