import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { sweepPass } from '#domain/sweep-pass';
import { startPeriodic } from './periodic.ts';

/** The scheduled `tasks-sweep` function's stand-in: the same sweep pass every `everyMs`. */
export const startSweeper = (db: Kysely<Database>, everyMs: number, log: (line: string) => void, o: { notifyOffline?: boolean } = {}) =>
  startPeriodic(
    'sweeper',
    everyMs,
    async () => {
      const r = await sweepPass(db, o);
      const lines: string[] = [];
      if (r.sent.length || r.failed.length || r.interrupted.length)
        lines.push(`sent ${r.sent.join(',') || '-'}; failed ${r.failed.join(',') || '-'}; interrupted ${r.interrupted.join(',') || '-'}`);
      if (r.offline.length) lines.push(`node_offline raised for ${r.offline.join(',')}`);
      if (r.auditPruned) lines.push(`audit rows pruned: ${r.auditPruned}`);
      if (r.tasksPruned) lines.push(`ended tasks pruned: ${r.tasksPruned}`);
      return lines.length ? lines.join('; ') : null;
    },
    log,
  );
