import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { scheduleDueRuns } from '#domain/backups/scheduler';

/**
 * What the scheduled `backups-schedule` function does in AWS (serverless-offline runs no schedules): queue the
 * due backup runs every `everyMs` in this process. Returns a stop function.
 */
export function startBackupScheduler(db: Kysely<Database>, everyMs: number, log: (line: string) => void): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = scheduleDueRuns(db)
      .then((r) => {
        if (r.queued.length || r.refused.length) log(`backup scheduler: queued task ${r.queued.join(',') || '-'}; refused job ${r.refused.join(',') || '-'}`);
      })
      .catch((err: Error) => log(`backup scheduler: ${err.message}`))
      .finally(() => (running = null));
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
