import { id32, pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { BACKUP_EVENT_SORT_FIELDS, SEARCH_MAX } from '#domain/backups/events';
import { backupEventSchema } from '#http/responses/backup';
import { pageOf } from '#http/responses/page';

export const schema = {
  operation: 'E12',
  summary: 'Backup events of the remote table: filtered by job or node, searched, sorted, paged',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/backups/events/remote',
  query: {
    type: 'object',
    properties: {
      ...pageQuery,
      jobId: id32,
      nodeId: nodeIdSchema,
      // case-insensitive substring of sourceDataset, targetEndpoint, status or error; no control characters
      search: { type: 'string', maxLength: SEARCH_MAX, pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
      'sort[0][field]': { type: 'string', enum: BACKUP_EVENT_SORT_FIELDS, default: 'startedAt' },
      'sort[0][dir]': { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
    },
    additionalProperties: false,
  },
  responses: { 200: 'backup_events_listed', 404: 'cluster_node_not_found' },
  data: pageOf(backupEventSchema),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
