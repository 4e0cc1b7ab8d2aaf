import type { EndpointInput, EndpointSchema } from '#http/spec';
import { backupJobBody } from '#domain/backups/job-input';
import { backupJobSchema } from '#http/responses/backup';

export const schema = {
  summary: 'Create a backup job: runner node, source (dataset or guest), target (member node or pinned SSH endpoint), cron schedule, retention',
  role: 'operator',
  method: 'POST',
  route: '/api/cluster/backups/jobs',
  body: backupJobBody,
  responses: { 201: 'backup_job_created', 400: 'validation_failed', 404: 'cluster_node_not_found / jail_not_found / vm_not_found', 409: 'node_not_member' },
  data: backupJobSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
