import spec from '#spec/cluster/backups-jobs-list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { requireNode } from '#domain/nodes/require-node';
import { listBackupJobs } from '#domain/backups/jobs';
import type { Input } from './backups-jobs-list.schema.ts';

export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  if (query.nodeId !== undefined) await requireNode(db, query.nodeId);
  return ok('backup_jobs_listed', await listBackupJobs(db, query));
});
