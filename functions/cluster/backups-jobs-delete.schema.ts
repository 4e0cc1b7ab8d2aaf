import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';

export const schema = {
  summary: 'Delete a backup job and its events (snapshots on the hosts stay)',
  role: 'operator',
  method: 'DELETE',
  route: '/api/cluster/backups/jobs/{id}',
  path: pathId('id'),
  responses: { 200: 'backup_job_deleted', 404: 'backup_job_not_found', 409: 'backup_job_busy' },
  data: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'], additionalProperties: false },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
