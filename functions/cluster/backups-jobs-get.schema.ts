import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { backupJobSchema } from '#http/responses/backup';

export const schema = {
  summary: 'A backup job: source, target, schedule, retention and when it runs next',
  role: 'viewer',
  method: 'GET',
  route: '/api/cluster/backups/jobs/{id}',
  path: pathId('id'),
  responses: { 200: 'backup_job', 404: 'backup_job_not_found' },
  data: backupJobSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
