import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { guestAgentSetSchema } from './responses.ts';

export const schema = {
  operation: 'E5',
  summary: 'Enable or disable the QEMU guest agent channel of a shut-off VM',
  role: 'operator',
  method: 'PUT',
  route: '/api/vm/{rid}/options/qemu-guest-agent',
  path: pathId('rid'),
  body: { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'], additionalProperties: false },
  responses: {
    200: 'vm_guest_agent_updated',
    400: 'validation_failed',
    404: 'vm_not_found',
    409: 'vm_not_shut_off / vm_orphaned / capability_missing',
    503: 'node_offline',
  },
  data: guestAgentSetSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
