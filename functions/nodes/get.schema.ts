import type { EndpointInput, EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { nodeViewSchema } from '#http/responses/node';

export const schema = {
  summary:
    'One cluster node with its online state, its host capabilities (release, __FreeBSD_version, RACCT, OpenZFS and libvirt versions; null until reported) and last reported inventory',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/nodes/{nodeId}',
  path: { type: 'object', properties: { nodeId: nodeIdSchema }, required: ['nodeId'], additionalProperties: false },
  responses: { 200: 'node_found', 404: 'cluster_node_not_found' },
  data: nodeViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
