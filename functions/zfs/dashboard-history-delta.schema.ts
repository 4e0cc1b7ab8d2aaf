import type { EndpointInput, EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { dashboardDeltaSchema } from './delta-response.ts';

const cursor = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

export const schema = {
  operation: 'E14',
  summary: 'Pool and ARC telemetry newer than the cursors (10 s samples; resetRequired past 10 000 rows)',
  role: 'viewer',
  method: 'GET',
  route: '/api/zfs/dashboard/history/delta',
  query: {
    type: 'object',
    properties: {
      /** last pool telemetry row id the client holds */
      poolAfter: cursor,
      /** last ARC telemetry row id the client holds */
      arcAfter: cursor,
      poolGuid: { type: 'string', minLength: 1, maxLength: 64 },
      /** beyond the spec: the node whose dashboard to read (default: the primary node) */
      nodeId: nodeIdSchema,
    },
    required: ['poolAfter', 'arcAfter'],
    additionalProperties: false,
  },
  responses: { 200: 'dashboard_history_delta', 400: 'validation_failed', 404: 'pool_not_managed | cluster_node_not_found' },
  data: dashboardDeltaSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
