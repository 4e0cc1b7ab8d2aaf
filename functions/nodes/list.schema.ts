import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';

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
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
