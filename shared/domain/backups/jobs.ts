import type { Kysely, Selectable } from 'kysely';
import type { BackupJobsTable, Database } from '#store/tables';
import { iso, lastPage, offsetOf, type Page, type PageRequest } from '#store/paging';
import { notFound } from '#shared/errors/domain-errors';
import { targetOf, type BackupTarget } from './target.ts';

export interface BackupJob {
  id: number;
  name: string;
  /** the runner node */
  nodeId: string;
  mode: string;
  sourceDataset: string;
  targetEndpoint: string;
  schedule: string;
  enabled: boolean;
  /** the source is this guest's datasets (resolved at each run) instead of `sourceDataset` */
  guest: { type: 'jail' | 'vm'; id: number } | null;
  /** null for a display-only job of an older store (it never runs) */
  target: BackupTarget | null;
  /** job snapshots kept on each side */
  retention: number;
  /** when the next scheduled run is due; null when disabled */
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const toBackupJob = (r: Selectable<BackupJobsTable>): BackupJob => ({
  id: r.id,
  name: r.name,
  nodeId: r.node_id,
  mode: r.mode,
  sourceDataset: r.source_dataset,
  targetEndpoint: r.target_endpoint,
  schedule: r.schedule,
  enabled: r.enabled,
  guest: r.guest_type && r.guest_id !== null ? { type: r.guest_type, id: r.guest_id } : null,
  target: targetOf(r),
  retention: r.retention,
  nextRunAt: iso(r.next_run_at),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

/** Backup jobs by id, optionally only those a node runs. */
export async function listBackupJobs(db: Kysely<Database>, q: PageRequest & { nodeId?: string }): Promise<Page<BackupJob>> {
  let base = db.selectFrom('backup_jobs');
  if (q.nodeId !== undefined) base = base.where('node_id', '=', q.nodeId);
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('id').limit(q.size).offset(offsetOf(q)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toBackupJob), last_page: lastPage(Number(total.n), q.size) };
}

/** The job row, or 404 `backup_job_not_found`. */
export async function requireBackupJob(db: Kysely<Database>, id: number): Promise<Selectable<BackupJobsTable>> {
  const row = await db.selectFrom('backup_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('backup_job_not_found', `backup job ${id} does not exist`);
  return row;
}

export const getBackupJob = async (db: Kysely<Database>, id: number): Promise<BackupJob> => toBackupJob(await requireBackupJob(db, id));
