import { pageQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { backupJobSchema } from '#http/responses/backup';
import { pageOf } from '#http/responses/page';

export const schema = {
  summary: 'Backup jobs, by id; optionally only those a node runs',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/backups/jobs',
  query: {
    type: 'object',
    properties: { ...pageQuery, nodeId: nodeIdSchema },
    additionalProperties: false,
  },
  responses: { 200: 'backup_jobs_listed', 404: 'cluster_node_not_found' },
  data: pageOf(backupJobSchema),
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
