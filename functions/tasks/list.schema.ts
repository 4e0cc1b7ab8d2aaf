import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { TASK_STATUSES } from '#shared/agent-api/task-status';
import { taskViewSchema } from '#http/responses/task';
import { pageOf } from '#http/responses/page';

export const schema = {
  summary: 'Tasks, newest first, filtered by resource key, status, node or kind',
  role: 'viewer',
  method: 'GET',
  route: '/api/tasks',
  query: {
    type: 'object',
    properties: {
      resource: { type: 'string', minLength: 1, maxLength: 300 },
      status: { type: 'string', enum: TASK_STATUSES },
      nodeId: nodeIdSchema,
      kind: { type: 'string', minLength: 1, maxLength: 100 },
      ...pageQuery,
    },
    additionalProperties: false,
  },
  responses: { 200: 'tasks_listed' },
  data: pageOf(taskViewSchema, { total: { type: 'integer', minimum: 0 } }),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
