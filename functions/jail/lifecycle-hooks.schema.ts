import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { hooksSchema } from '#shared/agent-api/jail-hooks';
import { jailHooksRecordSchema } from '#http/responses/jail';

export const schema = {
  operation: 'E3',
  summary: 'Replace all six lifecycle hook phases of a jail (effective on its next start/stop)',
  role: 'operator',
  method: 'PUT',
  route: '/api/jail/{ctid}/options/lifecycle-hooks',
  path: pathId('ctid'),
  body: { type: 'object', properties: { hooks: hooksSchema }, required: ['hooks'], additionalProperties: false },
  responses: { 200: 'jail_hooks_updated', 400: 'validation_failed', 404: 'jail_not_found', 409: 'jail_busy' },
  data: jailHooksRecordSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
