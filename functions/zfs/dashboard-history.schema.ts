import type { EndpointInput, EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { telemetryHistorySchema } from '#http/responses/telemetry-history';

const epochMs = { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 } as const;

export const schema = {
  summary:
    'Pool and ARC telemetry of a time window, averaged server-side into at most `points` buckets per series (E14 record shape; a day is a few hundred rows, not 8 640 per pool)',
  role: 'viewer',
  method: 'GET',
  route: '/api/zfs/dashboard/history',
  query: {
    type: 'object',
    properties: {
      /** window start, Unix ms (inclusive) */
      from: epochMs,
      /** window end, Unix ms (exclusive); must be after `from` */
      to: epochMs,
      /** the most buckets per series (default 360) */
      points: { type: 'integer', minimum: 1, maximum: 2000, default: 360 },
      poolGuid: { type: 'string', minLength: 1, maxLength: 64 },
      /** the node whose dashboard to read (default: the primary node) */
      nodeId: nodeIdSchema,
    },
    required: ['from', 'to'],
    additionalProperties: false,
  },
  responses: { 200: 'dashboard_history', 400: 'validation_failed', 404: 'pool_not_managed | cluster_node_not_found' },
  data: telemetryHistorySchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
