import spec from '#spec/cluster/backups-jobs-restore';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { planRestore, restoreResult } from '#domain/backups/restore';
import type { Input } from './backups-jobs-restore.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptTask(ctx, {
    message: 'backup_restore_queued',
    plan: (trx) => planRestore(trx, path.id, body ?? {}),
    data: (task, trx) => restoreResult(trx, task),
  }),
);
