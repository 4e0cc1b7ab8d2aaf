import { getDb } from '#store/db';
import { log } from '#shared/log/logger';
import { sweepPass } from '#domain/sweep-pass';

/**
 * Scheduled (sweep.trigger.ts: every minute), not an HTTP endpoint: the sweep pass for every node (agents also
 * sweep their own node on heartbeat).
 */
export const handler = async () => {
  const r = await sweepPass(getDb());
  log.info('task sweep', {
    sent: r.sent.length,
    failed: r.failed.length,
    interrupted: r.interrupted.length,
    auditPruned: r.auditPruned,
    tasksPruned: r.tasksPruned,
    offline: r.offline.length,
  });
  return r;
};
