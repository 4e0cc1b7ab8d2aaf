import { sql, type Kysely } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';
import { inTransaction } from '#store/tx';
import { activeExclusiveTask } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { jobColumns, type BackupJobInput } from './job-input.ts';
import { requireBackupJob, toBackupJob, type BackupJob } from './jobs.ts';

/** Creates a job; its first run is due at the schedule's next slot. */
export async function createBackupJob(db: Kysely<Database>, input: BackupJobInput): Promise<BackupJob> {
  return inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('backup_jobs')
      .values(await jobColumns(trx, input))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toBackupJob(row);
  });
}

/** Replaces a job (404 when missing); the next run is recomputed from the (new) schedule. */
export async function updateBackupJob(db: Kysely<Database>, id: number, input: BackupJobInput): Promise<BackupJob> {
  return inTransaction(db, async (trx) => {
    await requireBackupJob(trx, id);
    const row = await trx
      .updateTable('backup_jobs')
      .set({ ...(await jobColumns(trx, input)), updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toBackupJob(row);
  });
}

/**
 * Deletes a job and its events (404 when missing; 409 `backup_job_busy` while a run or restore of it is queued or
 * running: its task would report into a job that no longer exists). The snapshots on the hosts stay.
 */
export async function deleteBackupJob(db: Kysely<Database>, id: number): Promise<{ id: number }> {
  return inTransaction(db, async (trx) => {
    await requireBackupJob(trx, id);
    const busy = await activeExclusiveTask(trx, resourceKey.backupJob(id));
    if (busy) throw conflict('backup_job_busy', `backup job ${id} is busy: task ${busy.id} (${busy.kind}) is ${busy.status}`);
    await trx.deleteFrom('backup_jobs').where('id', '=', id).execute();
    return { id };
  });
}
