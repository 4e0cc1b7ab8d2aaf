import spec from '#spec/cluster/backups-jobs-get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { getBackupJob } from '#domain/backups/jobs';
import type { Input } from './backups-jobs-get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('backup_job', await getBackupJob(db, path.id)));
