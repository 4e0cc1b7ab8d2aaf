import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { backupRunSchema } from '#http/responses/backup';

export const schema = {
  summary: 'Run a backup job now: queues a run on its runner node (202 + task; an offline runner runs it when back); its event appears in E12',
  role: 'operator',
  method: 'POST',
  route: '/api/cluster/backups/jobs/{id}/run',
  path: pathId('id'),
  responses: {
    202: 'backup_run_queued',
    404: 'backup_job_not_found',
    409: 'resource_busy / node_not_member / node_address_unknown / backup_job_has_no_target / backup_source_missing / backup_source_not_nested',
  },
  data: backupRunSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
