import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { lunNumberSchema, zvolSchema } from '#domain/iscsi/schemas';
import { lunSchema } from '#http/responses/iscsi';

export const schema = {
  operation: 'E13',
  summary: 'Add a zvol-backed LUN to an iSCSI target; the agent regenerates /etc/ctl.conf, checks it with ctld -t and reloads ctld',
  role: 'operator',
  method: 'POST',
  route: '/api/iscsi/targets/{targetId}/luns',
  path: pathId('targetId'),
  bodyLimit: 64 * 1024,
  body: {
    type: 'object',
    properties: { lunNumber: lunNumberSchema, zvol: zvolSchema },
    required: ['lunNumber', 'zvol'],
    additionalProperties: false,
  },
  responses: {
    201: 'lun_added',
    400: 'validation_failed',
    404: 'iscsi_target_not_found | zvol_not_found',
    409: 'lun_number_in_use | zvol_in_use | capability_missing',
    413: 'payload_too_large',
  },
  data: lunSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
