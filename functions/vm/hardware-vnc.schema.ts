import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { VNC_PORT } from '#shared/agent-api/vm-rules';
import { vncSetSchema } from './responses.ts';

export const schema = {
  operation: 'E19',
  summary: 'Replace the VNC configuration of a shut-off VM (an empty password clears VNC authentication)',
  role: 'operator',
  method: 'PUT',
  route: '/api/vm/{rid}/hardware/vnc',
  path: pathId('rid'),
  body: {
    type: 'object',
    properties: {
      vncEnabled: { type: 'boolean' },
      // WxH within 640–3840 × 480–2160: checked by shared/domain/vms/vnc-rules.ts
      vncResolution: { type: 'string', maxLength: 16 },
      vncWait: { type: 'boolean' },
      // an IP literal, default 127.0.0.1
      vncBind: { type: 'string', maxLength: 64 },
      // absent keeps the current password; '' clears it; no commas
      vncPassword: { type: 'string', maxLength: 128 },
      // absent: the current port, else the lowest free one from 5900
      vncPort: { type: 'integer', minimum: VNC_PORT.min, maximum: VNC_PORT.max },
    },
    required: ['vncEnabled', 'vncResolution', 'vncWait'],
    additionalProperties: false,
  },
  responses: {
    200: 'vm_vnc_updated',
    400: 'validation_failed',
    404: 'vm_not_found',
    409: 'vm_not_shut_off / vm_orphaned / vnc_port_in_use',
    503: 'node_offline',
  },
  data: vncSetSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
