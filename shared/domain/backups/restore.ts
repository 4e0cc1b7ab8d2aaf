import { sql, type Transaction } from 'kysely';
import { conflict, unavailable } from '#shared/errors/domain-errors';
import type { Database, Db, TaskRow } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';
import { resourceKey, type BackupRestorePayload } from '#shared/agent-api/task-kinds';
import { reportedGuestIds } from '../jails/migrate.ts';
import { peerOf, targetEndpointLabel, targetOf } from './target.ts';
import { requireBackupJob } from './jobs.ts';
import { guestDataset } from './run-plan.ts';
import { checkEncryptionKey, snapshotNameOf, type KeyFormat } from './restore-input.ts';
import { cancelledBeforeStart } from '#domain/task-undo';
import { requireNode } from '#domain/nodes/require-node';
import { requireGuestIdleForRestore } from '#domain/power/restore-guard';

export interface RestoreRequest {
  snapshot?: string;
  encryptionKey?: string;
  encryptionKeyFormat?: KeyFormat;
}

export interface RestoreResult {
  jobId: number;
  eventId: number;
  taskId: number;
  dataset: string;
  /** null: the newest of the job's snapshots, which the runner resolves on the host (the store does not know them) */
  snapshot: string | null;
  outcome: 'queued';
}

/** 409 `guest_id_conflict` when another guest of the cluster holds the restored guest's id. */
async function requireGuestIdFree(trx: Db, runner: string, guest: { type: 'jail' | 'vm'; id: number }): Promise<string | null> {
  const row = await trx.selectFrom('guests').select(['id', 'type', 'node_id', 'name']).where('id', '=', guest.id).executeTakeFirst();
  if (row && (row.type !== guest.type || row.node_id !== runner)) {
    throw conflict('guest_id_conflict', `guest id ${guest.id} is taken by ${row.type} ${row.name} on cluster node ${row.node_id}`);
  }
  const others = await trx.selectFrom('nodes').select(['id', 'inventory']).where('id', '!=', runner).execute();
  const holder = others.find((n) => reportedGuestIds(n.inventory).includes(guest.id));
  if (holder) throw conflict('guest_id_conflict', `cluster node ${holder.id} already has a guest with id ${guest.id}`);
  return row?.name ?? null;
}

/**
 * E15 validation and planning, in the caller's transaction (acceptTask): the job exists (404), its runner is an
 * online member (503), no run or restore of the job is queued or running (409 `restore_conflict`), the restored
 * guest's id is not another guest's (409), no power action, migration or rollback holds the guest (409
 * `restore_conflict`). Writes the backup event (mode `restore`, queued) the task moves.
 */
export async function planRestore(trx: Transaction<Database>, jobId: number, req: RestoreRequest): Promise<TaskPlan<'backup.restore'>> {
  const job = await requireBackupJob(trx, jobId);
  checkEncryptionKey(req.encryptionKey, req.encryptionKeyFormat);
  const runner = await requireNode(trx, job.node_id, { role: `which runs backup job ${jobId}` });
  if (runner.status !== 'member' || !runner.online) {
    throw unavailable(
      'node_offline',
      `cluster node ${runner.id}, which runs backup job ${jobId}, is ${runner.status !== 'member' ? `${runner.status}, not a cluster member` : 'offline'}`,
    );
  }
  // any queued or running task of the job (its runs and restores are all on this one resource)
  const active = await trx
    .selectFrom('tasks')
    .select(['id', 'kind', 'status'])
    .where('resource', '=', resourceKey.backupJob(jobId))
    .where('status', 'in', ACTIVE_STATUSES)
    .orderBy('id')
    .executeTakeFirst();
  if (active) throw conflict('restore_conflict', `backup job ${jobId} is busy: task ${active.id} (${active.kind}) is ${active.status}`);
  const target = targetOf(job);
  if (!target) throw conflict('backup_job_no_target', `backup job ${jobId} has no target to restore from`);

  const guest = job.guest_type && job.guest_id ? { type: job.guest_type, id: job.guest_id } : null;
  const guestName = guest ? await requireGuestIdFree(trx, runner.id, guest) : null;
  if (guest) await requireGuestIdleForRestore(trx, guest.type, guest.id);
  // a guest job's source_dataset is only its label: the dataset is the guest's, resolved as its runs resolve it
  const dataset = guest ? await guestDataset(trx, job) : job.source_dataset;
  if (!dataset) throw conflict('backup_job_no_dataset', `backup job ${jobId} names no dataset to restore`);
  const snapshot = req.snapshot === undefined ? null : snapshotNameOf(req.snapshot, dataset);

  let label: string;
  if (target.kind === 'node') {
    const node = await requireNode(trx, target.nodeId, { role: `backup job ${jobId}'s target` });
    if (!node.ip) throw unavailable('node_address_unknown', `cluster node ${node.id} has not reported its address`);
    label = targetEndpointLabel(target, node.name);
  } else label = targetEndpointLabel(target);

  const event = await trx
    .insertInto('backup_events')
    .values({
      job_id: jobId,
      node_id: runner.id,
      mode: 'restore',
      source_dataset: dataset,
      target_endpoint: label,
      status: 'queued',
      error: '',
      output: snapshot ? `snapshot ${snapshot}` : 'snapshot: the newest of the job',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const payload: BackupRestorePayload = {
    jobId,
    eventId: event.id,
    dataset,
    snapshot,
    source: peerOf(target),
    guest: guest ? { ...guest, name: guestName ?? `${guest.type}${guest.id}` } : null,
    ...(req.encryptionKey !== undefined ? { encryptionKey: req.encryptionKey, encryptionKeyFormat: req.encryptionKeyFormat } : {}),
  };
  return { kind: 'backup.restore', nodeId: runner.id, resource: resourceKey.backupJob(jobId), payload };
}

/** The reply; links the event to its task (once: a repeated Idempotency-Key finds it linked). */
export async function restoreResult(trx: Db, task: Pick<TaskRow, 'id' | 'payload'>): Promise<RestoreResult> {
  const p = task.payload as BackupRestorePayload;
  await trx.updateTable('backup_events').set({ task_id: task.id }).where('id', '=', p.eventId).where('task_id', 'is', null).execute();
  return { jobId: p.jobId, eventId: p.eventId, taskId: task.id, dataset: p.dataset, snapshot: p.snapshot, outcome: 'queued' };
}

/** The restore's backup event follows its task: running when it starts, then as it ended (with the error). */
export async function applyRestoreOutcome(trx: Db, task: TaskOf<'backup.restore'>): Promise<void> {
  const eventId = task.payload.eventId;
  if (!eventId) return;
  const q = trx.updateTable('backup_events').where('id', '=', eventId);
  if (task.status === 'running') {
    await q
      .set({ status: 'running', started_at: sql<Date>`coalesce(started_at, now())`, updated_at: sql<Date>`now()` })
      .where('status', '=', 'queued')
      .execute();
    return;
  }
  if (task.status === 'queued') return;
  // cancelled before it started: the restore never happened, so neither did its event
  if (cancelledBeforeStart(task)) {
    await trx.deleteFrom('backup_events').where('id', '=', eventId).execute();
    return;
  }
  // a restore an operator cancelled while it ran is `cancelled`, as its task and a backup run's event end
  const status = task.status === 'failed' ? 'failed' : task.status;
  const restored = task.result?.snapshot;
  await q
    .set({
      status,
      error: status === 'success' ? '' : task.error || `task ${task.id} ${task.status}`,
      ...(restored ? { output: `restored snapshot ${restored}` } : {}),
      started_at: sql<Date>`coalesce(started_at, now())`,
      completed_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .execute();
}
