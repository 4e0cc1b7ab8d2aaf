import { pathId, type EndpointInput, type EndpointSchema } from '#http/spec';
import { KEY_FORMATS, SNAPSHOT_PATTERN, ZFS_NAME_MAX } from '#domain/backups/restore-input';
import { backupRestoreSchema } from '#http/responses/backup';

export const schema = {
  operation: 'E15',
  summary: "Queue the restore of a backup job's snapshot (default: the newest) onto the job's dataset on its runner",
  role: 'operator',
  method: 'POST',
  route: '/api/cluster/backups/jobs/{id}/restore',
  path: pathId('id'),
  body: {
    type: 'object',
    properties: {
      snapshot: { type: 'string', minLength: 1, maxLength: ZFS_NAME_MAX, pattern: SNAPSHOT_PATTERN },
      encryptionKey: { type: 'string', minLength: 1, maxLength: 512 },
      encryptionKeyFormat: { enum: KEY_FORMATS },
    },
    additionalProperties: false,
  },
  responses: {
    202: 'backup_restore_queued',
    400: 'validation_failed',
    404: 'backup_job_not_found / cluster_node_not_found',
    409: 'restore_conflict / guest_id_conflict / backup_job_no_target / backup_job_no_dataset',
    503: 'node_offline / node_address_unknown',
  },
  data: backupRestoreSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
