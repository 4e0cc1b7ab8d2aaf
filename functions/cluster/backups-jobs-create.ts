import spec from '#spec/cluster/backups-jobs-create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';
import { createBackupJob } from '#domain/backups/job-write';
import type { Input } from './backups-jobs-create.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, { db }) => created('backup_job_created', await createBackupJob(db, body)));
