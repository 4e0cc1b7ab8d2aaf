import type { Selectable } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import type { BackupJobsTable, Db, TaskRow } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import { resourceKey, type BackupRunTarget } from '#shared/agent-api/task-kinds';
import { peerOf, targetOf } from './target.ts';

type JobRow = Selectable<BackupJobsTable>;

/** A guest's source: a jail's root dataset, or the one dataset that holds all of a VM's (a `-R` send takes the rest). */
export async function guestDataset(trx: Db, job: JobRow): Promise<string> {
  const g = await trx.selectFrom('guests').select(['config']).where('id', '=', job.guest_id!).where('type', '=', job.guest_type!).executeTakeFirst();
  if (!g) throw conflict('backup_source_missing', `backup job ${job.id}: ${job.guest_type} ${job.guest_id} no longer exists`);
  const c = g.config as { dataset?: string | null; datasets?: string[] };
  const all = job.guest_type === 'jail' ? (c.dataset ? [c.dataset] : []) : Array.isArray(c.datasets) ? c.datasets : [];
  const root = [...all].sort((a, b) => a.length - b.length)[0];
  if (!root) throw conflict('backup_source_missing', `backup job ${job.id}: ${job.guest_type} ${job.guest_id} has no ZFS dataset`);
  if (!all.every((d) => d === root || d.startsWith(`${root}/`))) {
    throw conflict(
      'backup_source_not_nested',
      `backup job ${job.id}: the datasets of ${job.guest_type} ${job.guest_id} do not share one parent (${all.join(', ')})`,
    );
  }
  return root;
}

/** What the target is for the agent: the peer it reaches (node, or the pinned SSH endpoint) and the dataset. */
async function runTarget(trx: Db, job: JobRow): Promise<BackupRunTarget> {
  const t = targetOf(job);
  if (!t) throw conflict('backup_job_has_no_target', `backup job ${job.id} has no target; set one with PUT /api/cluster/backups/jobs/${job.id}`);
  if (t.kind === 'ssh') return { ...peerOf(t), label: job.target_endpoint };
  const node = await trx.selectFrom('nodes').select(['id', 'status', 'ip']).where('id', '=', t.nodeId).executeTakeFirst();
  if (!node || node.status !== 'member') throw conflict('node_not_member', `backup job ${job.id}: target node ${t.nodeId} is not a cluster member`);
  if (!node.ip) throw conflict('node_address_unknown', `backup job ${job.id}: target node ${t.nodeId} has not reported its address`);
  return { ...peerOf(t), label: job.target_endpoint };
}

/**
 * The runner must be a member (409). An offline one is no refusal: the run waits in its queue and runs when the
 * runner is back, as a scheduled run does.
 */
export async function requireRunnerMember(trx: Db, job: JobRow): Promise<void> {
  const n = await trx.selectFrom('nodes').select(['status']).where('id', '=', job.node_id).executeTakeFirst();
  if (!n || n.status !== 'member') throw conflict('node_not_member', `backup job ${job.id}: runner node ${job.node_id} is not a cluster member`);
}

/** The task of one run, exclusive on the job (a run and a restore of one job never overlap: 409 while one is active). */
export async function planBackupRun(trx: Db, job: JobRow): Promise<TaskPlan<'backup.run'>> {
  const source = job.guest_type ? await guestDataset(trx, job) : job.source_dataset;
  const target = await runTarget(trx, job);
  return {
    kind: 'backup.run',
    nodeId: job.node_id,
    resource: resourceKey.backupJob(job.id),
    payload: { jobId: job.id, source, retention: job.retention, target },
  };
}

/** The run's event, `queued`, in the transaction that creates its task (a repeated request finds the first). */
export async function recordQueuedEvent(trx: Db, task: TaskRow): Promise<number> {
  const existing = await trx.selectFrom('backup_events').select('id').where('task_id', '=', task.id).executeTakeFirst();
  if (existing) return existing.id;
  const p = task.payload as TaskPlan<'backup.run'>['payload'];
  const row = await trx
    .insertInto('backup_events')
    .values({
      job_id: p.jobId,
      node_id: task.node_id,
      task_id: task.id,
      mode: '',
      source_dataset: p.source,
      target_endpoint: p.target.label,
      status: 'queued',
      output: '',
      error: '',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface BackupRunQueued {
  jobId: number;
  eventId: number;
  taskId: number;
}
