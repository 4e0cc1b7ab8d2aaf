import spec from '#spec/cluster/backups-jobs-delete';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { deleteBackupJob } from '#domain/backups/job-write';
import type { Input } from './backups-jobs-delete.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('backup_job_deleted', await deleteBackupJob(db, path.id)));
