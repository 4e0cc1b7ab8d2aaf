import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { WAIT_TIME } from '#shared/agent-api/vm-rules';
import { waitTimeSetSchema } from './responses.ts';

export const schema = {
  operation: 'E6',
  summary: 'Set how many seconds a graceful VM shutdown may take before the VM is destroyed (any VM state)',
  role: 'operator',
  method: 'PUT',
  route: '/api/vm/{rid}/options/shutdown-wait-time',
  path: pathId('rid'),
  body: {
    type: 'object',
    properties: { waitTime: { type: 'integer', minimum: WAIT_TIME.min, maximum: WAIT_TIME.max, description: 'seconds' } },
    required: ['waitTime'],
    additionalProperties: false,
  },
  responses: { 200: 'vm_shutdown_wait_time_updated', 400: 'validation_failed', 404: 'vm_not_found' },
  data: waitTimeSetSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
