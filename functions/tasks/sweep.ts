import { getDb } from '#store/db';
import { sweepTasks } from '#shared/jobs/sweeper';

/**
 * Scheduled (sweep.trigger.ts: every minute), not an HTTP endpoint: re-sends tasks left `queued` and
 * interrupts tasks of nodes that went silent, for every node (agents also sweep their own node on heartbeat).
 */
export const handler = async () => {
  const result = await sweepTasks(getDb());
  console.log(JSON.stringify({ level: 'info', msg: 'task sweep', sent: result.sent.length, failed: result.failed.length, interrupted: result.interrupted.length }));
  return result;
};
