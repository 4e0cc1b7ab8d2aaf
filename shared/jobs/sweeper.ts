import { sql, type Kysely } from 'kysely';
import type { Database, TaskRow } from '#store/tables';
import { OFFLINE_AFTER_HEARTBEATS, onlineSql } from '#store/presence';
import { inTransaction } from '#store/tx';
import { setting } from '#shared/config/read';
import { log } from '#shared/log/logger';
import { sendTask } from './dispatch.ts';
import { undoesAfterRestart } from '#shared/agent-api/task-kinds';
import { afterTaskEnded, interruptTasks, type TaskOutcome } from './lifecycle.ts';

/**
 * Keeps the queue in step with the tasks table: messages are sent after commit, so a send can
 * fail or a message can be lost (DLQ, retention) while its task stays `queued`. The sweeper
 *   - sends tasks never sent (`dispatch_count = 0`) after `unsentAfterS`;
 *   - re-sends a sent task still `queued` after `resendAfterS` when its node is online and nothing runs on its
 *     resource (else the message is simply waiting its turn, or for the agent to come back);
 *   - fails a task after `maxSends` send attempts, failed ones included (a message that keeps dying, e.g. one
 *     that crashes the agent, or one the queue keeps refusing), and notifies;
 *   - marks `running` tasks of a node that went silent `interrupted` (never stuck running) — except one an operator
 *     asked to cancel whose kind its agent undoes after a restart: it stays `running` with its request, so the
 *     returning agent undoes it and reports `cancelled` (as at an agent restart, lifecycle.ts interruptStaleTasks),
 *     instead of the host finishing work the operator cancelled.
 * Duplicates it may cause are harmless: agents start tasks through the store, idempotently by id.
 * It runs on every agent heartbeat (for that node) and on a schedule (all nodes).
 */
export interface SweepOptions {
  nodeId?: string;
  unsentAfterS?: number;
  resendAfterS?: number;
  maxSends?: number;
  limit?: number;
  /** what an ended task changes in the store (shared/domain/task-outcomes.ts), for the tasks the sweep ends; required, so no caller skips it */
  applyOutcome: TaskOutcome;
}

export interface SweepResult {
  sent: number[];
  failed: number[];
  interrupted: number[];
}

export function sweepDefaults(env: NodeJS.ProcessEnv = process.env): Required<Omit<SweepOptions, 'nodeId' | 'applyOutcome'>> {
  return {
    unsentAfterS: setting('HM_SWEEP_UNSENT_S', env),
    resendAfterS: setting('HM_SWEEP_RESEND_S', env),
    maxSends: setting('HM_SWEEP_MAX_SENDS', env),
    limit: 100,
  };
}

const secs = (s: number) => sql`${s} * interval '1 second'`;

export async function sweepTasks(db: Kysely<Database>, options: SweepOptions): Promise<SweepResult> {
  const o = { ...sweepDefaults(), ...options };
  const out: SweepResult = { sent: [], failed: [], interrupted: [] };
  // 1. queued tasks whose message is missing or presumed lost
  const due: TaskRow[] = await db
    .selectFrom('tasks as t')
    .innerJoin('nodes as n', 'n.id', 't.node_id')
    .selectAll('t')
    .$if(Boolean(o.nodeId), (q) => q.where('t.node_id', '=', o.nodeId!))
    .where('t.status', '=', 'queued')
    .where((eb) =>
      eb.or([
        eb.and([eb('t.dispatch_count', '=', 0), sql<boolean>`coalesce(t.dispatched_at, t.created_at) < now() - ${secs(o.unsentAfterS)}`]),
        eb.and([
          eb('t.dispatch_count', '>', 0),
          sql<boolean>`t.dispatched_at < now() - ${secs(o.resendAfterS)}`,
          onlineSql('n'),
          sql<boolean>`NOT EXISTS (SELECT 1 FROM tasks r WHERE r.node_id = t.node_id AND r.resource = t.resource AND r.status = 'running')`,
        ]),
      ]),
    )
    .orderBy('t.id')
    .limit(o.limit)
    .execute();

  for (const t of due) {
    // attempts, not successes: a message the queue keeps refusing must end too
    const attempts = Math.max(t.send_attempts, t.dispatch_count);
    if (attempts >= o.maxSends) {
      const error =
        t.dispatch_count === 0
          ? `the task could not be sent to the queue of node ${t.node_id} in ${attempts} attempts; last error: ${t.send_error || 'unknown'}`
          : `no agent of node ${t.node_id} picked the task up after ${t.dispatch_count} sends (${attempts} attempts)`;
      // the failure and what follows it commit together, as every other end of a task does
      const gone = await inTransaction(db, async (trx) => {
        const row = await trx
          .updateTable('tasks')
          .set({ status: 'failed', error, phase: 'failed', finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
          .where('id', '=', t.id)
          .where('status', '=', 'queued')
          .returningAll()
          .executeTakeFirst();
        if (row) await afterTaskEnded(trx, row, o.applyOutcome);
        return row;
      });
      if (gone) out.failed.push(t.id);
      continue;
    }
    // claim: a concurrent sweeper re-evaluates the same staleness test against the updated row and skips it
    const after = t.dispatch_count === 0 ? o.unsentAfterS : o.resendAfterS;
    const claimed = await db
      .updateTable('tasks')
      .set({ dispatched_at: sql<Date>`now()` })
      .where('id', '=', t.id)
      .where('status', '=', 'queued')
      .where('dispatch_count', '=', t.dispatch_count)
      .where(sql<boolean>`coalesce(dispatched_at, created_at) < now() - ${secs(after)}`)
      .returningAll()
      .executeTakeFirst();
    if (!claimed) continue;
    try {
      await sendTask(claimed, db);
      out.sent.push(t.id);
    } catch (err) {
      log.warn('sweeper could not send task', { taskId: t.id, nodeId: t.node_id, cause: (err as Error).message });
    }
  }

  // 2. running tasks of nodes that stopped reporting
  const silent = await db
    .selectFrom('tasks as t')
    .innerJoin('nodes as n', 'n.id', 't.node_id')
    .select(['t.id', 't.kind', 't.cancel_requested_at'])
    .$if(Boolean(o.nodeId), (q) => q.where('t.node_id', '=', o.nodeId!))
    .where('t.status', '=', 'running')
    .where(sql<boolean>`NOT ${onlineSql('n')}`)
    .where(sql<boolean>`t.updated_at < now() - (${OFFLINE_AFTER_HEARTBEATS} * n.heartbeat_interval_s) * interval '1 second'`)
    .limit(o.limit)
    .execute();
  const lost = silent.filter((r) => !(r.cancel_requested_at && undoesAfterRestart(r.kind)));
  if (lost.length) {
    out.interrupted = await interruptTasks(
      db,
      lost.map((r) => r.id),
      'interrupted: the node stopped reporting while the task was running',
      o.applyOutcome,
    );
  }
  return out;
}
