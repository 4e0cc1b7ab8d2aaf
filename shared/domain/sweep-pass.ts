import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import type { SweepResult } from '#shared/jobs/sweeper';
import { notifyOfflineNodes } from './nodes/offline.ts';
import { pruneAudit } from './audit/retention.ts';
import { pruneTasks } from '#shared/jobs/retention';
import { sweepTasks } from './task-transitions.ts';

/**
 * What the scheduled sweep does, in AWS and in `npm start` alike: re-sends tasks left `queued` and interrupts
 * tasks of nodes that went silent (their outcomes applied), deletes audit rows and ended tasks past their
 * retention, and raises `node_offline` once for each member node that went silent (unless `notifyOffline: false`).
 */
export async function sweepPass(
  db: Kysely<Database>,
  o: { notifyOffline?: boolean } = {},
): Promise<SweepResult & { auditPruned: number; tasksPruned: number; offline: string[] }> {
  const result = await sweepTasks(db);
  const auditPruned = await pruneAudit(db);
  const tasksPruned = await pruneTasks(db);
  const offline = o.notifyOffline === false ? [] : await notifyOfflineNodes(db);
  return { ...result, auditPruned, tasksPruned, offline };
}
