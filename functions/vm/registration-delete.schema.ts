import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { purgeResultSchema } from './responses.ts';

export const schema = {
  operation: 'E10',
  summary: 'Purge an orphaned VM registration (libvirt no longer defines the VM); datasets are kept',
  role: 'operator',
  method: 'DELETE',
  route: '/api/vm/{rid}/registration',
  path: pathId('rid'),
  query: {
    type: 'object',
    properties: { deletemacs: { type: 'boolean', default: true, description: 'also delete the MAC objects no other VM uses' } },
    additionalProperties: false,
  },
  responses: { 200: 'vm_registration_purged', 400: 'validation_failed', 404: 'vm_not_found', 409: 'vm_still_defined', 503: 'node_offline' },
  data: purgeResultSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
