import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { pageOf } from '#http/responses/page';
import { nodeViewSchema } from '#http/responses/node';

export const schema = {
  summary: 'Cluster nodes with their membership status and whether their agent is online (heard from within three heartbeats)',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/nodes',
  query: {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['pending', 'member'] },
      online: { type: 'boolean' },
      ...pageQuery,
    },
    additionalProperties: false,
  },
  responses: { 200: 'nodes_listed' },
  data: pageOf(nodeViewSchema, { total: { type: 'integer', minimum: 0 } }),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
