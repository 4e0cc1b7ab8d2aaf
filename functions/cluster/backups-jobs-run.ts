import spec from '#spec/cluster/backups-jobs-run';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { planRunNow, runQueued } from '#domain/backups/run-now';
import type { Input } from './backups-jobs-run.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, ctx) =>
  acceptTask(ctx, {
    message: 'backup_run_queued',
    plan: (trx) => planRunNow(trx, path.id),
    data: (task, trx) => runQueued(trx, task),
  }),
);
