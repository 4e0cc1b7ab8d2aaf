import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { stableJson } from '#shared/agent-api/inventory-hash';
import type { HandlerContext } from '#http/endpoint';
import { accepted, type Reply } from '#http/envelope';
import { inTransaction } from '#store/tx';
import type { Database, TaskRow } from '#store/tables';
import { dispatchTask } from '#shared/jobs/dispatch';
import { checkIdempotencyKey, createTask, findIdempotentTask, type Enqueue, type TaskPlan } from '#shared/jobs/tasks';

interface AcceptOptions<T> {
  /** the envelope's message, e.g. `device_replacement_queued` */
  message: string;
  /**
   * checks that must wait on something outside the store (an upstream service), run before the transaction so
   * the store is never held meanwhile; skipped, like `plan`, for a repeated Idempotency-Key
   */
  precheck?: (db: Kysely<Database>) => Promise<void>;
  /** validates against the store and persists the change, inside the transaction; returns the task to create */
  plan: (trx: Transaction<Database>) => Promise<TaskPlan>;
  /** the response data, built from the task — also for a repeated Idempotency-Key (then `plan` does not run) */
  data: (task: TaskRow, trx: Transaction<Database>) => Promise<T> | T;
}

/** The request's `Idempotency-Key` header, validated; undefined when absent. */
function idempotencyKeyOf(ctx: HandlerContext): string | undefined {
  const headers = ctx.event.headers ?? {};
  const key = headers['idempotency-key'] ?? Object.entries(headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1];
  return key === undefined ? undefined : checkIdempotencyKey(key);
}

/**
 * What an Idempotency-Key stands for: the method, the path and a digest of the body (key order ignored). The
 * same key with a different body is another request: 409 idempotency_key_reused, never the first task.
 */
const requestRef = (ctx: HandlerContext) => {
  const body = (ctx.event as { body?: unknown }).body;
  const digest = body === undefined || body === null ? '' : ` body:${createHash('sha256').update(stableJson(body)).digest('hex').slice(0, 16)}`;
  return `${ctx.event.requestContext?.http?.method ?? ''} ${ctx.event.rawPath ?? ''}${digest}`.trim();
};

/**
 * The whole of a 202 endpoint (E7, E15, E20, E22) after validation of its input:
 * a repeated `Idempotency-Key` answers with the first task (before any state check, which the first request
 * may have changed); otherwise `plan` runs and the task is created in ONE transaction, the message is sent
 * after commit, and the reply is 202 with `Location: /api/tasks/{id}`.
 */
export async function acceptTask<T>(ctx: HandlerContext, o: AcceptOptions<T>): Promise<Reply<T>> {
  const key = idempotencyKeyOf(ctx);
  const ref = requestRef(ctx);
  const by = { tokenId: ctx.principal.tokenId, name: ctx.principal.name };
  if (o.precheck && !(key && (await findIdempotentTask(ctx.db, by, key, ref)))) await o.precheck(ctx.db);
  const { task, data } = await inTransaction(ctx.db, async (trx) => {
    const earlier = key ? await findIdempotentTask(trx, by, key, ref) : undefined;
    const task = earlier ?? (await createTask(trx, { ...(await o.plan(trx)), requestedBy: by, idempotencyKey: key, requestRef: ref }));
    return { task, data: await o.data(task, trx) };
  });
  await dispatchTask(task, ctx.db);
  return accepted(o.message, data, task.id);
}

/**
 * For 200/201 endpoints that change a host (E1–E6, E9–E11, E13, E17, E19): run `fn` in one transaction with
 * an `enqueue` that creates tasks in it (requested by the caller); the tasks are sent after commit.
 */
export async function withTasks<T>(ctx: HandlerContext, fn: (trx: Transaction<Database>, enqueue: Enqueue) => Promise<T>): Promise<T> {
  const by = { tokenId: ctx.principal.tokenId, name: ctx.principal.name };
  const { result, tasks } = await inTransaction(ctx.db, async (trx) => {
    const tasks: TaskRow[] = [];
    const result = await fn(trx, async (plan) => {
      const t = await createTask(trx, { ...plan, requestedBy: by });
      tasks.push(t);
      return t;
    });
    return { result, tasks };
  });
  for (const t of tasks) await dispatchTask(t, ctx.db);
  return result;
}
