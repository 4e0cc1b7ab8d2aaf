import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { vmViewSchema } from './responses.ts';

export const schema = {
  summary: 'A VM as the store holds it: node, libvirt state, options, MAC objects and datasets',
  role: 'viewer',
  method: 'GET',
  route: '/api/vm/{rid}',
  path: pathId('rid'),
  responses: { 200: 'vm', 404: 'vm_not_found' },
  data: vmViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
