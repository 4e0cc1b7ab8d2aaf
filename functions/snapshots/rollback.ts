import spec from '#spec/snapshots/rollback';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { toTaskView } from '#shared/jobs/tasks';
import { planSnapshotRollback } from '#domain/snapshots/plan';
import type { TaskPayload } from '#shared/agent-api/task-kinds';
import type { Input } from './rollback.schema.ts';

/** 202 with the task and the snapshots it destroys (from its payload, so a repeated Idempotency-Key answers the same). */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  acceptTask(ctx, {
    message: 'snapshot_rollback_queued',
    plan: async (trx) => (await planSnapshotRollback(trx, path.guestType, path.guestId, body.snapshot, body.destroyNewer ?? false)).plan,
    data: (task) => ({ task: toTaskView(task), destroys: (task.payload as TaskPayload<'snapshot.rollback'>).destroys }),
  }),
);
