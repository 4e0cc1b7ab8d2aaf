import { getDb } from '#store/db';
import { sweepTasks } from '#shared/jobs/sweeper';
import { pruneAudit } from '#domain/audit/retention';
import { applyTaskOutcome } from '#domain/task-outcomes';

/**
 * Scheduled (sweep.trigger.ts: every minute), not an HTTP endpoint: re-sends tasks left `queued` and
 * interrupts tasks of nodes that went silent, for every node (agents also sweep their own node on heartbeat);
 * deletes audit rows past their retention (HM_AUDIT_RETENTION_DAYS, default 180).
 */
export const handler = async () => {
  const result = await sweepTasks(getDb(), { applyOutcome: applyTaskOutcome });
  const auditPruned = await pruneAudit(getDb());
  console.log(JSON.stringify({ level: 'info', msg: 'task sweep', sent: result.sent.length, failed: result.failed.length, interrupted: result.interrupted.length, auditPruned }));
  return result;
};
