import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { backupJobBody } from '#domain/backups/job-input';
import { backupJobSchema } from '#http/responses/backup';

export const schema = {
  summary: 'Replace a backup job (its next run is recomputed from the schedule)',
  role: 'operator',
  method: 'PUT',
  route: '/api/cluster/backups/jobs/{id}',
  path: pathId('id'),
  body: backupJobBody,
  responses: {
    200: 'backup_job_updated',
    400: 'validation_failed',
    404: 'backup_job_not_found / cluster_node_not_found / jail_not_found / vm_not_found',
    409: 'node_not_member',
  },
  data: backupJobSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
