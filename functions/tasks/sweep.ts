import { getDb } from '#store/db';
import { sweepPass } from '#domain/sweep-pass';

/**
 * Scheduled (sweep.trigger.ts: every minute), not an HTTP endpoint: the sweep pass for every node (agents also
 * sweep their own node on heartbeat).
 */
export const handler = async () => {
  const r = await sweepPass(getDb());
  console.log(
    JSON.stringify({
      level: 'info',
      msg: 'task sweep',
      sent: r.sent.length,
      failed: r.failed.length,
      interrupted: r.interrupted.length,
      auditPruned: r.auditPruned,
      tasksPruned: r.tasksPruned,
      offline: r.offline.length,
    }),
  );
  return r;
};
