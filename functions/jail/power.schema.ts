import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { JAIL_POWER_ACTIONS } from '#domain/power/power';
import { powerAnswerSchema } from '#http/responses/power';

export const schema = {
  summary: 'Start, stop or restart a jail as its conf defines it (jail -c/-r: its hooks and CPU limits run); a jail already so answers 200 without a task',
  role: 'operator',
  method: 'POST',
  route: '/api/jail/{ctid}/power',
  path: pathId('ctid'),
  body: {
    type: 'object',
    properties: { action: { type: 'string', enum: JAIL_POWER_ACTIONS } },
    required: ['action'],
    additionalProperties: false,
  },
  responses: {
    200: 'jail_already_running / jail_already_stopped',
    202: 'jail_power_queued',
    400: 'validation_failed',
    404: 'jail_not_found',
    409: 'jail_busy (a migration, a power task or a backup restore of the jail) / resource_busy',
    503: 'node_offline',
  },
  data: powerAnswerSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
