import type { EndpointInput, EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { nodeViewSchema } from '#http/responses/node';
import { joinConflictReportSchema } from '#http/responses/cluster';

/** An address as typed: the handler checks it is an IP literal (400 naming the field). */
const ipSchema = { type: 'string', minLength: 1, maxLength: 64 } as const;

export const schema = {
  operation: 'E16',
  summary: 'Admit a registered (pending) node as a cluster member; 409 with the guest conflict report',
  role: 'admin',
  method: 'POST',
  route: '/api/cluster/join',
  body: {
    type: 'object',
    properties: {
      clusterKey: { type: 'string', minLength: 1, maxLength: 256 },
      leaderIp: ipSchema,
      nodeId: nodeIdSchema,
      nodeIp: ipSchema,
    },
    required: ['clusterKey', 'leaderIp', 'nodeId', 'nodeIp'],
    additionalProperties: false,
  },
  responses: {
    200: 'cluster_joined | cluster_already_member',
    400: 'validation_failed',
    403: 'cluster_key_mismatch',
    404: 'cluster_node_not_found',
    409: 'cluster_join_conflict | leader_ip_mismatch | node_ip_mismatch',
    413: 'payload_too_large',
    503: 'cluster_key_not_set',
  },
  /** the node record (a member joining again: the same, unchanged) */
  data: nodeViewSchema,
  errorData: { cluster_join_conflict: joinConflictReportSchema },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
