import spec from '#spec/snapshots/destroy';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { toTaskView } from '#shared/jobs/tasks';
import { planSnapshotDestroy } from '#domain/snapshots/plan';
import type { Input } from './destroy.schema.ts';

/** 202 with the task; the agent runs `zfs destroy <ds@snap>` (agent/jobs/snapshots.ts). */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptTask(ctx, {
    message: 'snapshot_destroy_queued',
    plan: (trx) => planSnapshotDestroy(trx, path.guestType, path.guestId, body.snapshot),
    data: (task) => toTaskView(task),
  }),
);
