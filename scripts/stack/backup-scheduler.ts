import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { scheduleDueRuns } from '#domain/backups/scheduler';
import { startPeriodic } from './periodic.ts';

/** The scheduled `backups-schedule` function's stand-in: queue the due backup runs every `everyMs`. */
export const startBackupScheduler = (db: Kysely<Database>, everyMs: number, log: (line: string) => void) =>
  startPeriodic(
    'backup scheduler',
    everyMs,
    async () => {
      const r = await scheduleDueRuns(db);
      return r.queued.length || r.refused.length ? `queued task ${r.queued.join(',') || '-'}; refused job ${r.refused.join(',') || '-'}` : null;
    },
    log,
  );
