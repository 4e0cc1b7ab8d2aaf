import spec from '#spec/snapshots/create';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { toTaskView } from '#shared/jobs/tasks';
import { planSnapshotCreate } from '#domain/snapshots/plan';
import type { Input } from './create.schema.ts';

/** 202 with the task; the agent runs one `zfs snapshot` for all the guest's datasets (agent/jobs/snapshots.ts). */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptTask(ctx, {
    message: 'snapshot_create_queued',
    plan: (trx) => planSnapshotCreate(trx, path.guestType, path.guestId, body.name),
    data: (task) => toTaskView(task),
  }),
);
