import spec from '#spec/cluster/backups-jobs-update';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { updateBackupJob } from '#domain/backups/job-write';
import type { Input } from './backups-jobs-update.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, { db }) => ok('backup_job_updated', await updateBackupJob(db, path.id, body)));
