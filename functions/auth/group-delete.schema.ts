import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';

export const schema = {
  operation: 'E2',
  summary: 'Delete a managed host group that is neither protected nor a user’s primary group',
  role: 'admin',
  method: 'DELETE',
  route: '/api/auth/groups/{groupId}',
  path: pathId('groupId'),
  responses: {
    200: 'group_deleted',
    400: 'validation_failed',
    404: 'group_not_found',
    409: 'group_protected | group_referenced',
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
