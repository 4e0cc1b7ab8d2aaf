import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';

export const schema = {
  operation: 'E1',
  summary: 'Replace the editable (supplementary) members of a managed host group',
  role: 'admin',
  method: 'PUT',
  route: '/api/auth/groups/{groupId}/members',
  path: pathId('groupId'),
  body: {
    type: 'object',
    properties: {
      /** trimmed, non-blank and unique (checked after trimming), each an existing user of the group's host */
      usernames: { type: 'array', maxItems: 4096, items: { type: 'string', maxLength: 64 } },
    },
    required: ['usernames'],
    additionalProperties: false,
  },
  responses: {
    200: 'group_members_updated',
    400: 'validation_failed',
    404: 'group_not_found | user_not_found',
    409: 'root_must_stay_in_wheel | primary_group_member',
    413: 'payload_too_large',
  },
  /** the Group of spec part 2 */
  data: {
    type: 'object',
    properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string' } },
    required: ['id', 'name'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
