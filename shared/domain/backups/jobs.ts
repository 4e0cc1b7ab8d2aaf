import type { Kysely, Selectable } from 'kysely';
import type { BackupJobsTable, Database } from '#store/tables';
import { iso, lastPage, offsetOf, type Page, type PageRequest } from '#store/paging';

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
