import type { Kysely, Transaction } from 'kysely';
import type { Database } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import { PowerUnchanged, queuedAnswer, type PowerAnswer } from '#domain/power/power';
import type { HandlerContext } from './endpoint.ts';
import { ok, type Reply } from './envelope.ts';
import { acceptTask } from './accept.ts';

/**
 * A guest power request: 202 with its task, or — when `precheck` finds the guest already in the wanted state
 * ({@link PowerUnchanged}) — 200 with no task. A repeated Idempotency-Key answers with its first task, as
 * every 202 endpoint does (the precheck is skipped for it).
 */
export async function acceptPower(
  ctx: HandlerContext,
  message: string,
  guestId: number,
  o: { precheck: (db: Kysely<Database>) => Promise<void>; plan: (trx: Transaction<Database>) => Promise<TaskPlan> },
): Promise<Reply<PowerAnswer>> {
  try {
    return await acceptTask(ctx, {
      message,
      precheck: o.precheck,
      plan: o.plan,
      data: async (task, trx) => {
        const g = await trx.selectFrom('guests').select('state').where('id', '=', guestId).executeTakeFirst();
        return queuedAnswer(task, guestId, g?.state ?? 'unknown');
      },
    });
  } catch (e) {
    if (e instanceof PowerUnchanged) return ok(e.code, e.answer);
    throw e;
  }
}
