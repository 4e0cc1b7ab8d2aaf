import type { EndpointInput, EndpointSchema } from '#http/spec';
import { deviceNameSchema, poolGuidSchema } from '#domain/pools/devices';
import { taskViewSchema } from '#http/responses/task';

export const schema = {
  operation: 'E7',
  summary: 'Replace a device of a ZFS pool (zpool replace; resilver progress on the task)',
  role: 'operator',
  method: 'POST',
  route: '/api/zfs/pools/{guid}/replace-device',
  path: { type: 'object', properties: { guid: poolGuidSchema }, required: ['guid'], additionalProperties: false },
  body: {
    type: 'object',
    properties: { old: deviceNameSchema, new: deviceNameSchema },
    required: ['old', 'new'],
    additionalProperties: false,
  },
  responses: {
    202: 'device_replacement_queued',
    400: 'validation_failed',
    404: 'pool_not_found',
    409: 'device_not_in_pool | device_in_use | resource_busy',
    413: 'payload_too_large',
  },
  /** the task that replaces the device; follow it at GET /api/tasks/{id} */
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
