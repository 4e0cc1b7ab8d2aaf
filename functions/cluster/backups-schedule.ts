import { getDb } from '#store/db';
import { log } from '#shared/log/logger';
import { scheduleDueRuns } from '#domain/backups/scheduler';

/**
 * Scheduled (backups-schedule.trigger.ts: every minute), not an HTTP endpoint: queues each due backup job's run
 * on its runner's queue; a runner that was offline runs its missed jobs once when it returns.
 */
export const handler = async () => {
  const r = await scheduleDueRuns(getDb());
  log.info('backup schedule', { queued: r.queued.length, busy: r.busy.length, refused: r.refused.length, settled: r.settled });
  return r;
};
