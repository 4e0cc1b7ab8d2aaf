import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { MAX_HOST_CPUS } from '#domain/inventory';
import { jailCpuLimitSchema } from '#http/responses/jail';

export const schema = {
  operation: 'E4',
  summary: 'Set the CPU-core limit of a jail (applied at once when it runs)',
  role: 'operator',
  method: 'PUT',
  route: '/api/jail/{ctid}/hardware/cpu',
  path: pathId('ctid'),
  // the upper bound is the host's CPU count, checked against the store (400 names it)
  body: { type: 'object', properties: { cores: { type: 'integer', minimum: 1, maximum: MAX_HOST_CPUS } }, required: ['cores'], additionalProperties: false },
  responses: { 200: 'jail_cpu_updated', 400: 'validation_failed', 404: 'jail_not_found', 409: 'jail_busy', 503: 'node_offline' },
  data: jailCpuLimitSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
