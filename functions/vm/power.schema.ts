import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { VM_POWER_ACTIONS } from '#domain/power/power';
import { powerAnswerSchema } from '#http/responses/power';

export const schema = {
  summary:
    "Start, stop (ACPI shutdown, destroyed after the VM's shutdown wait time), restart or power off (at once) a VM; a VM already so answers 200 without a task",
  role: 'operator',
  method: 'POST',
  route: '/api/vm/{rid}/power',
  path: pathId('rid'),
  body: {
    type: 'object',
    properties: { action: { type: 'string', enum: VM_POWER_ACTIONS } },
    required: ['action'],
    additionalProperties: false,
  },
  responses: {
    200: 'vm_already_running / vm_already_shut_off',
    202: 'vm_power_queued',
    400: 'validation_failed',
    404: 'vm_not_found',
    409: 'vm_orphaned / vm_busy (a power task or a backup restore of the VM) / resource_busy',
    503: 'node_offline',
  },
  data: powerAnswerSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
